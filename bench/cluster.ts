/**
 * `npm run bench -- cluster [--json]`: the cluster path (HAProxy on deploy/haproxy.cfg in front of
 * `sitevoice serve` instances sharing one PostgreSQL database and one Redis database) with ONE
 * instance behind the proxy and with THREE, side by side in one run, on this one machine: the
 * same cores serve both, so the comparison shows what the cluster path costs, not a speed-up.
 *
 * Setup: a fresh PostgreSQL database (events-db.ts: made and dropped by its guard process), the
 * Redis database BENCH_REDIS_URL (redis://127.0.0.1:6379/6) flushed, the query path's REST
 * backend in its own process (query.ts), the sites and one session each made in the database by
 * a service process of their own (cluster-maker.ts, which also marks their first crawls done),
 * then the three instances and HAProxy (cluster-nodes.ts, cluster-procs.ts).
 *
 * Two workloads, each run by `wrk -t1` (wrk.ts) against HAProxy, HAProxy started afresh per run
 * for its configuration:
 *
 * - query: the signed `POST /v1/:siteId/query` of the query benchmark (its 5 searches, its
 *   backend, its signing), each run over BENCH_SITES sites of its own, so that no site's limits
 *   (30 queries a second, 300 a minute) carry over from one run to the next: a run stays under
 *   them while req/s × BENCH_SECONDS ÷ BENCH_SITES < 300 (3,000 req/s at the defaults); every
 *   answer checked (200 and the right `"total":N,"returned":M,`). A warm-up per configuration,
 *   then one run each round.
 * - events: signed event ingestion as the events benchmark sends it (events-ingest.ts: every
 *   request unique, BENCH_EVENTS_PER_REQUEST events each, its own warm-up then the run), each
 *   run over sites of its own (so no site's 600 events a minute is shared between runs), and
 *   every acknowledged event looked for in the database after the instances stopped: lost or
 *   duplicated other than 0 is no result.
 *
 * Each round: one (query, events), then three (query, events). Any error (a non-2xx answer, a
 * wrong one, a socket error or wrk's 2 s timeout, an instance that crashed, HAProxy taking a
 * server out, PostgreSQL or Redis restarted meanwhile) makes the run no result: exit 1. On
 * stderr: each run's rate and its slowest request in HAProxy's log, and what the instances logged
 * at warn or above.
 *
 * Settings: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_ROUNDS (3), BENCH_CONCURRENCY
 * (32), BENCH_SITES (100 query sites a run); BENCH_EVENTS_PER_REQUEST (20), BENCH_EVENTS_RATE
 * (40,000); BENCH_REDIS_URL; BENCH_PG_URL (events-db.ts); BENCH_HAPROXY (/usr/sbin/haproxy).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../test/helpers/cli-process.ts";
import { makeTempDir, removeTempDir } from "./cleanup.ts";
import type { ClusterFixture, ClusterMakerConfig } from "./cluster-maker.ts";
import {
  Cluster,
  CONFIGS,
  postgresInfo,
  redisInfo,
  redisSetting,
  type Config,
  type CpuWindow,
} from "./cluster-nodes.ts";
import { HAPROXY_BIN } from "./cluster-procs.ts";
import { clusterMarkdown, machine } from "./cluster-markdown.ts";
import { clusterSummary, type ClusterRun } from "./cluster-report.ts";
import { postgresDatabase, storedIds } from "./events-db.ts";
import {
  ingestionSiteCount,
  judgeIngestion,
  readIngestionOptions,
  sendEvents,
  type IngestionOptions,
  type IngestionRun,
} from "./events-ingest.ts";
import type { EventsSite } from "./events-service.ts";
import { COLLECTION, signedQueries, startQueryBackend, type QueryBackend } from "./query.ts";
import type { BenchSettings } from "./rounds.ts";
import { startSide } from "./sides.ts";
import { runWrk, writeWrkScript } from "./wrk.ts";

const MAKER = new URL("./cluster-maker.ts", import.meta.url);

const say = (line: string) => console.error(`cluster: ${line}`);
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Distinct free ports. */
async function ports(count: number): Promise<number[]> {
  const found = new Set<number>();
  while (found.size < count) found.add(await freePort());
  return [...found];
}

/** The runs, in the order they ran, and the event runs' raw outcomes to judge once stopped. */
async function measure(
  cluster: Cluster,
  fixture: ClusterFixture,
  needles: string[],
  dir: string,
  settings: BenchSettings,
  options: IngestionOptions,
): Promise<{
  runs: ClusterRun[];
  pending: Map<ClusterRun, IngestionRun>;
  querySites: Map<ClusterRun, string[]>;
}> {
  const runs: ClusterRun[] = [];
  const pending = new Map<ClusterRun, IngestionRun>();
  const querySites = new Map<ClusterRun, string[]>();
  const connections = settings.concurrency;
  const alive = () => {
    const gone = cluster.gone();
    if (gone.length > 0) throw new Error(`an instance stopped under load:\n${gone.join("\n")}`);
  };

  let querySlice = 0;
  const query = async (config: Config, round: number, seconds: number) => {
    const sites = fixture.query.slice(
      querySlice * settings.siteCount,
      ++querySlice * settings.siteCount,
    );
    const runDir = path.join(dir, `query-${querySlice}`);
    fs.mkdirSync(runDir);
    const script = writeWrkScript(signedQueries(sites, needles).load, runDir);
    await cluster.use(config);
    const end = cluster.cpuWindow(config);
    const wrk = await runWrk(cluster.origin, script, { seconds, connections });
    const cpu = end();
    const proxy = await cluster.release();
    alive();
    const run: ClusterRun = { workload: "query", config, round, wrk, cpu, proxy };
    runs.push(run);
    querySites.set(
      run,
      sites.map((site) => site.siteId),
    );
    const when = round === 0 ? "warm-up" : `round ${round}`;
    say(`${when}, ${config}: query ${wrk.rps} req/s (slowest ${proxy?.slowestMs ?? "?"} ms)`);
  };

  const perRun = fixture.events.length / (CONFIGS.length * settings.rounds);
  let eventSlice = 0;
  const events = async (config: Config, round: number) => {
    const sites: EventsSite[] = fixture.events.slice(eventSlice * perRun, ++eventSlice * perRun);
    await cluster.use(config);
    let end: (() => CpuWindow) | undefined;
    let cpu: CpuWindow = { instances: 0, idle: 0, proxy: 0 };
    // What sendEvents needs of a side: where to send, and a window around the measured run.
    const side = {
      origin: cluster.origin,
      start: async () => {
        end = cluster.cpuWindow(config);
      },
      stop: async () => {
        cpu = end?.() ?? cpu;
        return { cpuMs: cpu.instances, answered: 0 };
      },
    };
    const runDir = path.join(dir, `events-${round}-${config}`);
    fs.mkdirSync(runDir);
    const ingested = await sendEvents(side, sites, runDir, settings, options, `${config}-${round}`);
    fs.rmSync(runDir, { recursive: true, force: true });
    const proxy = await cluster.release();
    alive();
    const run: ClusterRun = {
      workload: "events",
      config,
      round,
      wrk: ingested.run,
      warm: ingested.warm,
      cpu,
      proxy,
    };
    runs.push(run);
    pending.set(run, ingested);
    const eventsPerSecond = Math.round(ingested.runIds.length / ingested.run.seconds);
    say(
      `round ${round}, ${config}: events ${ingested.run.rps} req/s, ${eventsPerSecond} ` +
        `events/s (slowest ${proxy?.slowestMs ?? "?"} ms)`,
    );
  };

  for (const config of CONFIGS) await query(config, 0, settings.warmupSeconds);
  for (let round = 1; round <= settings.rounds; round++) {
    for (const config of CONFIGS) {
      await query(config, round, settings.seconds);
      await events(config, round);
    }
  }
  return { runs, pending, querySites };
}

/** Runs the benchmark; prints its report; true when every run is a result. */
export async function benchCluster(settings: BenchSettings, json: boolean): Promise<boolean> {
  const options = readIngestionOptions();
  const redisUrl = redisSetting();
  if (!fs.existsSync(HAPROXY_BIN)) {
    throw new Error(`no HAProxy at ${HAPROXY_BIN} (apt-get install haproxy, or BENCH_HAPROXY)`);
  }
  const started = Date.now();
  const before = os.loadavg()[0] as number;
  const dir = makeTempDir();
  // Every run has sites of its own, so that no site's per-minute limit is shared between runs.
  const querySites = settings.siteCount * CONFIGS.length * (1 + settings.rounds);
  const eventSites = ingestionSiteCount(settings, options) * CONFIGS.length * settings.rounds;
  const redis = await redisInfo(redisUrl, true);
  const db = await postgresDatabase(path.join(dir, "maker"));
  let backend: QueryBackend | undefined;
  let cluster: Cluster | undefined;
  try {
    const postgres = await postgresInfo(db.url as string);
    backend = await startQueryBackend();
    const config: ClusterMakerConfig = {
      dataDir: path.join(dir, "maker"),
      databaseUrl: db.url as string,
      masterKey: crypto.randomBytes(32).toString("base64"),
      backendUrl: backend.backendUrl,
      collection: COLLECTION,
      querySiteCount: querySites,
      eventSiteCount: eventSites,
    };
    say(`making ${querySites} query sites and ${eventSites} event sites`);
    const maker = await startSide<ClusterFixture>(MAKER, "service", config);
    const fixture = maker.fixture;
    await maker.close();
    say(`sites made in ${(fixture.makingMs / 1000).toFixed(1)} s; starting the instances`);

    const [proxyPort, p1, p2, p3] = (await ports(4)) as [number, number, number, number];
    cluster = new Cluster(
      {
        databaseUrl: config.databaseUrl,
        redisUrl,
        masterKey: config.masterKey,
        publicBaseUrl: `http://127.0.0.1:${proxyPort}`,
        dir,
      },
      { proxy: proxyPort, instances: [p1, p2, p3] },
    );
    await cluster.start(fixture.query.length + fixture.events.length);
    say(`3 instances up (nightly crawls planned in ${(cluster.planningMs / 1000).toFixed(1)} s)`);

    const {
      runs,
      pending,
      querySites: runSites,
    } = await measure(cluster, fixture, backend.needles, dir, settings, options);
    // The instances store what is pending as they stop; only then is every event counted.
    const ended = await cluster.stop();
    const logged = cluster.warnings().map((line) => cut(line, 200));
    for (const line of logged) say(`logged ${line}`);
    cluster = undefined;
    for (const [run, ingested] of pending) {
      run.events = await judgeIngestion(ingested, db.database, settings, options);
    }
    for (const [run, siteIds] of runSites) {
      const stored = (await storedIds(db.database, "db_query", siteIds)).length;
      const answered = run.wrk.requests;
      run.usage = {
        stored,
        lost: Math.max(0, answered - stored),
        unanswered: Math.max(0, stored - answered),
      };
    }
    const load = { before, after: os.loadavg()[0] as number };
    // Whatever else uses this machine's servers (the cluster suite restarts both) may have.
    const problems = [...ended];
    // Emptied after as well (the limits' counters would expire within a minute anyway).
    if ((await redisInfo(redisUrl, true)).runId !== redis.runId) {
      problems.push("Redis restarted during the run");
    }
    if ((await postgresInfo(config.databaseUrl)).startedAt !== postgres.startedAt) {
      problems.push("PostgreSQL restarted during the run");
    }
    const summary = clusterSummary(runs, settings, options, {
      querySitesPerRun: settings.siteCount,
      eventSitesPerRun: fixture.events.length / (CONFIGS.length * settings.rounds),
      machine: machine({ postgres: postgres.version, redis: redis.version }),
      problems,
      logged,
      load,
      minutes: (Date.now() - started) / 60_000,
    });
    console.log(`\n## cluster\n`);
    console.log(clusterMarkdown(summary, runs));
    if (summary.problems.length > 0) {
      for (const problem of summary.problems) console.log(`ERRORS: ${problem}`);
      console.log("A run with errors or lost events is not a result: cluster is not one.");
    }
    if (json) console.log(JSON.stringify(summary));
    return summary.problems.length === 0;
  } finally {
    await cluster?.stop().catch(() => []);
    await backend?.stop();
    // A failed drop is reported without hiding what went wrong before it.
    await db.close().catch((error: Error) => say(`${error.message}: drop it by hand`));
    removeTempDir(dir);
  }
}
