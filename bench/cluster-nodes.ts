/**
 * The cluster under load: three `sitevoice serve` instances on one PostgreSQL database and one
 * Redis database, always up, and HAProxy on deploy/haproxy.cfg at one address (every instance's
 * PUBLIC_BASE_URL), started afresh for each run with the configuration measured:
 *
 * - one: SITEVOICE_1, _2 and _3 all name sv1, so HAProxy sends everything to that one process
 *   (its three server lines, their checks and backups all reach it); sv2 and sv3 stay up but get
 *   no requests (their job processors poll, and they hear each batch of stored usage events
 *   announced over Redis; their CPU is reported apart, as idle);
 * - three: sv1, sv2 and sv3, round-robin, as in production.
 *
 * sv1 starts alone and the harness waits until its start-up planning has made the nightly crawl
 * job of every site (thousands of rows, once), so that no run measures that; sv2 and sv3 start
 * after it. CPU time is read per process around each run: the instances HAProxy sends to, the
 * idle ones, and HAProxy.
 */
import path from "node:path";
import pg from "pg";
import { Redis } from "ioredis";
import {
  cpuMsOf,
  readProxyLog,
  running,
  startInstance,
  startProxy,
  stopProc,
  tail,
  warnings,
  type Instance,
  type InstanceSettings,
  type Proc,
  type ProxyLog,
} from "./cluster-procs.ts";

export const CONFIGS = ["one", "three"] as const;
export type Config = (typeof CONFIGS)[number];

export const INSTANCES: Record<Config, number> = { one: 1, three: 3 };

/** CPU time in ms over one run's window. */
export interface CpuWindow {
  /** The instances HAProxy sent to (sv1, or all three). */
  instances: number;
  /** The instances it did not send to (sv2 and sv3 in a "one" run; none in a "three" run). */
  idle: number;
  proxy: number;
}

/** BENCH_REDIS_URL: a numbered Redis database of the benchmark's own, flushed before it starts. */
export function redisSetting(): string {
  const raw = process.env.BENCH_REDIS_URL?.trim() || "redis://127.0.0.1:6379/6";
  const db = /^rediss?:\/\/[^/]+\/(\d+)$/.exec(raw)?.[1];
  if (db === undefined || Number(db) === 0) {
    throw new Error(`BENCH_REDIS_URL must name a Redis database other than 0 (…/6): ${raw}`);
  }
  return raw;
}

/** Which Redis server answers at `url` (a restart changes its run id); `flush` empties the db. */
export async function redisInfo(
  url: string,
  flush = false,
): Promise<{ version: string; runId: string }> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on("error", () => {});
  try {
    await redis.connect();
    if (flush) await redis.flushdb();
    const info = await redis.info("server");
    const field = (name: string) => new RegExp(`${name}:(\\S+)`).exec(info)?.[1] ?? "?";
    return { version: field("redis_version"), runId: field("run_id") };
  } finally {
    redis.disconnect();
  }
}

/** The PostgreSQL server's version and when it started (a restart changes it). */
export async function postgresInfo(
  databaseUrl: string,
): Promise<{ version: string; startedAt: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string; s: string }>(
      "select current_setting('server_version') as v, pg_postmaster_start_time()::text as s",
    );
    return { version: rows[0]?.v.split(" ")[0] ?? "?", startedAt: rows[0]?.s ?? "?" };
  } finally {
    await client.end();
  }
}

/** Waits until the nightly crawl jobs of `sites` sites are planned (agenda_jobs, PostgreSQL). */
async function untilPlanned(databaseUrl: string, sites: number, ms: number): Promise<number> {
  const from = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (;;) {
      const found = await client
        .query<{ n: string }>(`select count(*) as n from agenda_jobs where name = 'crawls.nightly'`)
        .then((r) => Number(r.rows[0]?.n ?? 0))
        .catch(() => 0); // the table is made by the job backend at its start
      if (found >= sites) return Date.now() - from;
      if (Date.now() - from > ms) {
        throw new Error(`only ${found} of ${sites} nightly crawl jobs planned after ${ms} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await client.end();
  }
}

export class Cluster {
  readonly instances: Instance[] = [];
  private proxy: Proc | undefined;
  private proxyRuns = 0;
  /** How long sv1's planning of the nightly crawls took. */
  planningMs = 0;

  constructor(
    private readonly settings: InstanceSettings,
    private readonly ports: { proxy: number; instances: [number, number, number] },
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${this.ports.proxy}`;
  }

  async start(siteCount: number): Promise<void> {
    const [p1, p2, p3] = this.ports.instances;
    this.instances.push(await startInstance(1, p1, this.settings));
    this.planningMs = await untilPlanned(this.settings.databaseUrl, siteCount, 300_000);
    this.instances.push(
      ...(await Promise.all([
        startInstance(2, p2, this.settings),
        startInstance(3, p3, this.settings),
      ])),
    );
  }

  /** The instances HAProxy sends to in `config`. */
  serving(config: Config): Instance[] {
    return this.instances.slice(0, INSTANCES[config]);
  }

  /** Starts HAProxy for `config`, after the previous one stopped. */
  async use(config: Config): Promise<void> {
    await this.release();
    const address = (i: Instance) => `127.0.0.1:${i.port}`;
    const [a, b, c] = this.instances.map(address) as [string, string, string];
    const servers: [string, string, string] = config === "one" ? [a, a, a] : [a, b, c];
    const logFile = path.join(this.settings.dir, `haproxy-${++this.proxyRuns}-${config}.log`);
    this.proxy = await startProxy(this.ports.proxy, servers, logFile);
  }

  /** Stops HAProxy (hard stop: wrk is done) and reads its log; undefined when none ran. */
  async release(): Promise<ProxyLog | undefined> {
    const proxy = this.proxy;
    if (proxy === undefined) return undefined;
    this.proxy = undefined;
    const how = await stopProc(proxy, "SIGTERM", 10_000);
    if (how !== "code 0" && how !== "signal SIGTERM") {
      throw new Error(`haproxy ended with ${how}:\n${tail(proxy)}`);
    }
    return readProxyLog(proxy.logFile);
  }

  /** Starts a CPU window for `config`; the returned function ends it. */
  cpuWindow(config: Config): () => CpuWindow {
    const serving = new Set(this.serving(config));
    const sum = (which: (i: Instance) => boolean) =>
      this.instances.filter(which).reduce((total, i) => total + cpuMsOf(i.child.pid), 0);
    const read = () => ({
      instances: sum((i) => serving.has(i)),
      idle: sum((i) => !serving.has(i)),
      proxy: cpuMsOf(this.proxy?.child.pid),
    });
    const from = read();
    return () => {
      const to = read();
      return {
        instances: to.instances - from.instances,
        idle: to.idle - from.idle,
        proxy: to.proxy - from.proxy,
      };
    };
  }

  /** Instances that are no longer running (a crash is no result). */
  gone(): string[] {
    return this.instances.filter((i) => !running(i)).map((i) => `${i.name}:\n${tail(i)}`);
  }

  /** What each instance logged at warn or above so far, by instance: `sv1: 3× redis error`. */
  warnings(): string[] {
    return this.instances.flatMap((i) => warnings(i).map((line) => `${i.name}: ${line}`));
  }

  /**
   * Stops HAProxy, then every instance with SIGTERM (each stores its pending events before it
   * exits); how each ended, by name, when not `code 0`.
   */
  async stop(): Promise<string[]> {
    await this.release().catch(() => undefined);
    const ends = await Promise.all(
      this.instances.map(async (i) => [i, await stopProc(i, "SIGTERM", 30_000)] as const),
    );
    return ends
      .filter(([, how]) => how !== "code 0")
      .map(([i, how]) => `${i.name} ended with ${how}:\n${tail(i, 10)}`);
  }
}
