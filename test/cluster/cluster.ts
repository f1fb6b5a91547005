/**
 * The cluster under test: three real `sitevoice serve` processes on one PostgreSQL database and
 * one Redis database, with the real HAProxy of deploy/haproxy.cfg in front (its addresses from
 * the environment, as the file expects). Instances can be killed with SIGKILL and started again
 * on the same port; HAProxy's own log tells which servers it holds up or down.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, run, type Run } from "../helpers/cli-process.ts";
import { waitUntil } from "../helpers/wait-until.ts";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const HAPROXY_CFG = path.join(ROOT, "deploy", "haproxy.cfg");
export const HAPROXY_BIN = "/usr/sbin/haproxy";

export interface Instance {
  /** 1, 2 or 3: `sv<n>` in HAProxy's config. */
  n: number;
  port: number;
  url: string;
  process: Run | undefined;
  /** Started and answering ready, and not killed since. */
  serving: boolean;
  /** Everything every process of this instance printed, oldest first. */
  log: string[];
}

export interface ClusterOptions {
  databaseUrl: string;
  redisUrl: string;
  /** Added to every instance's environment (the OpenAI stand-in's address, …). */
  env: Record<string, string>;
}

export class Cluster {
  readonly instances: Instance[] = [];
  readonly masterKey = crypto.randomBytes(32).toString("base64");
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-cluster-"));
  haproxy: ChildProcess | undefined;
  haproxyPort = 0;
  /** HAProxy's stderr lines (its request log and server state changes). */
  readonly haproxyLog: string[] = [];
  /** The state HAProxy last logged for each server (`sv1` … and the backups). */
  readonly serverState = new Map<string, "UP" | "DOWN">();
  /** The first API key (all scopes, test mode), printed by the first start. */
  firstKey = "";

  constructor(readonly options: ClusterOptions) {}

  get url(): string {
    return `http://127.0.0.1:${this.haproxyPort}`;
  }

  /** Ports first (HAProxy's address is every instance's PUBLIC_BASE_URL), then sv1 alone, then the others. */
  async start(): Promise<void> {
    this.haproxyPort = await freePort();
    for (let n = 1; n <= 3; n++) {
      const port = await freePort();
      this.instances.push({
        n,
        port,
        url: `http://127.0.0.1:${port}`,
        process: undefined,
        serving: false,
        log: [],
      });
    }
    await this.startInstance(this.instances[0]!);
    const key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(this.instances[0]!.log.join(""))?.[1];
    if (key === undefined)
      throw new Error(`no first key printed:\n${this.instances[0]!.log.join("")}`);
    this.firstKey = key;
    await Promise.all(this.instances.slice(1).map((i) => this.startInstance(i)));
    await this.startHaproxy();
  }

  env(instance: Instance): Record<string, string> {
    return {
      PORT: String(instance.port),
      HOST: "127.0.0.1",
      DATABASE_URL: this.options.databaseUrl,
      REDIS_URL: this.options.redisUrl,
      SITEVOICE_MASTER_KEY: this.masterKey,
      SITEVOICE_DATA_DIR: path.join(this.dir, `data-${instance.n}`),
      PUBLIC_BASE_URL: this.url,
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      SITEVOICE_JOBS: "on",
      SITEVOICE_JOBS_POLL_MS: "200",
      TRUSTED_PROXIES: "loopback",
      SITEVOICE_SITES_DIR: "",
      SITEVOICE_DEMO: "off",
      LOG_LEVEL: "warn",
      SITEVOICE_STREAM_HEARTBEAT_MS: "1000",
      ...this.options.env,
    };
  }

  /** Starts `instance` on its port and waits until it answers ready (LOG_LEVEL=warn hides "listening"). */
  async startInstance(instance: Instance): Promise<void> {
    const started = run(["serve"], this.dir, this.env(instance));
    instance.process = started;
    const mark = instance.log.length;
    started.child.stdout?.on("data", (chunk: Buffer) => instance.log.push(chunk.toString()));
    started.child.stderr?.on("data", (chunk: Buffer) => instance.log.push(chunk.toString()));
    const output = () => instance.log.slice(mark).join("");
    await waitUntil(
      `sv${instance.n} ready`,
      async () => {
        if (started.child.exitCode !== null) {
          throw new Error(`sv${instance.n} exited (${started.child.exitCode}):\n${output()}`);
        }
        // "Dashboard:" is printed after the first key, once the server listens.
        return output().includes("Dashboard:") && (await readyStatus(instance.url)) === 200;
      },
      60_000,
    );
    instance.serving = true;
  }

  /** SIGKILL: no drain, no flush, no lease given back. */
  async kill(instance: Instance): Promise<void> {
    const started = instance.process;
    if (started === undefined || !running(instance)) return;
    instance.serving = false;
    started.child.kill("SIGKILL");
    await started.exited;
  }

  /** Instances whose process runs (a SIGKILLed child keeps exitCode null: signalCode says it). */
  alive(): Instance[] {
    return this.instances.filter((i) => running(i));
  }

  async startHaproxy(): Promise<void> {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      SITEVOICE_BIND: `127.0.0.1:${this.haproxyPort}`,
    };
    for (const instance of this.instances)
      env[`SITEVOICE_${instance.n}`] = `127.0.0.1:${instance.port}`;
    const child = spawn(HAPROXY_BIN, ["-db", "-f", HAPROXY_CFG], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.haproxy = child;
    let pending = "";
    const read = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        this.haproxyLog.push(line);
        if (this.haproxyLog.length > 20_000) this.haproxyLog.shift();
        const state = /Server instances\/(\S+) is (UP|DOWN)/.exec(line);
        if (state) this.serverState.set(state[1]!, state[2] as "UP" | "DOWN");
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    await waitUntil(
      "HAProxy answering",
      async () => {
        if (child.exitCode !== null)
          throw new Error(`haproxy exited:\n${this.haproxyLog.join("\n")}`);
        return (await readyStatus(this.url)) === 200;
      },
      15_000,
    );
  }

  /** Waits until HAProxy has logged `sv<n>` UP again (servers start UP, so only after a DOWN). */
  async waitServerUp(instance: Instance, ms = 20_000): Promise<void> {
    const name = `sv${instance.n}`;
    await waitUntil(`HAProxy to mark ${name} UP`, () => this.serverState.get(name) !== "DOWN", ms);
  }

  /** Waits until HAProxy has taken `sv<n>` out (two failed checks). */
  async waitServerDown(instance: Instance, ms = 20_000): Promise<void> {
    const name = `sv${instance.n}`;
    await waitUntil(
      `HAProxy to mark ${name} DOWN`,
      () => this.serverState.get(name) === "DOWN",
      ms,
    );
  }

  /**
   * What went wrong where, for a failure's message: each instance's error lines (counted, by
   * message) and HAProxy's server changes and 5xx answers.
   */
  diagnostics(tail = 15): string {
    const parts = this.instances.map((i) => {
      const counts = new Map<string, number>();
      for (const line of i.log.join("").split("\n")) {
        const entry = parseLogLine(line);
        if (entry === undefined || (entry.level ?? 0) < 50) continue;
        const err = typeof entry.err === "string" ? entry.err : entry.err?.message;
        const where = entry.path === undefined ? "" : ` ${entry.path} ${entry.status}`;
        const what = `${entry.msg}${where}${err === undefined ? "" : ` (${err})`}`;
        counts.set(what, (counts.get(what) ?? 0) + 1);
      }
      const lines = [...counts].slice(-tail).map(([what, n]) => `  ${n}x ${what}`);
      return `--- sv${i.n} (port ${i.port}) errors:\n${lines.join("\n")}`;
    });
    const proxy = this.haproxyLog
      .filter((l) => /Server instances| 5\d\d \d+ /.test(l))
      .slice(-tail);
    return [...parts, `--- haproxy (server changes, 5xx):\n${proxy.join("\n")}`].join("\n");
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.instances.map(async (instance) => {
        const started = instance.process;
        if (started === undefined || !running(instance)) return;
        started.child.kill("SIGTERM");
        const timer = setTimeout(() => started.child.kill("SIGKILL"), 15_000);
        await started.exited;
        clearTimeout(timer);
      }),
    );
    const proxy = this.haproxy;
    if (proxy !== undefined && proxy.exitCode === null) {
      const exited = new Promise((resolve) => proxy.once("exit", resolve));
      proxy.kill("SIGTERM");
      await exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function running(instance: Instance): boolean {
  const child = instance.process?.child;
  return child !== undefined && child.exitCode === null && child.signalCode === null;
}

interface LogLine {
  level?: number;
  msg?: string;
  err?: { message?: string } | string;
  path?: string;
  status?: number;
}

function parseLogLine(line: string): LogLine | undefined {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
}

/** GET /v1/health/ready's status, or 0 when nothing answers within 2 s. */
export async function readyStatus(base: string): Promise<number> {
  try {
    const res = await fetch(`${base}/v1/health/ready`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}
