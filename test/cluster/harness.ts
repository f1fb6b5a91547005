/**
 * A cluster as operators run one: the machine's PostgreSQL (a database of the suite's own) and
 * Redis (a database number of its own, flushed), three real `sitevoice serve` processes, and
 * Debian's HAProxy in front with the configuration operators use (deploy/haproxy.cfg). An
 * instance can be killed (`kill -9`) and started again on its port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import knexFactory, { type Knex } from "knex";
import { freePort, run, serving, type Run } from "../helpers/cli-process.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "../helpers/test-databases.ts";
import { waitUntil } from "../helpers/wait-until.ts";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const REDIS_URL = `${process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"}/7`;

export interface Instance {
  port: number;
  url: string;
  run: Run;
}

export interface Cluster {
  /** HAProxy's address: what clients use. */
  url: string;
  instances: Instance[];
  /** The first API key the first instance printed. */
  key: string;
  /** The cluster's database, to count what was stored. */
  db: Knex;
  /** `kill -9` of instance `i`; resolves once it is gone. */
  kill(i: number): Promise<void>;
  /** Starts instance `i` again on its port; resolves once it listens. */
  restart(i: number): Promise<void>;
  /** Resolves once HAProxy counts `n` instances up (its checks: ready, 2 in a row). */
  upstreams(n: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(extraEnv: Record<string, string> = {}): Promise<Cluster> {
  const postgres = databaseTargets.find((t) => t.client === "postgres")!;
  const database = (await createTestDatabase(postgres)) as TestDatabase;
  if (database === undefined) throw new Error("PostgreSQL is not running");
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-cluster-"));
  const [proxyPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const url = `http://127.0.0.1:${proxyPort}`;
  const env = {
    HOST: "127.0.0.1",
    DATABASE_URL: database.url,
    REDIS_URL,
    SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
    PUBLIC_BASE_URL: url,
    TRUSTED_PROXIES: "loopback",
    SITEVOICE_SITES_DIR: "",
    SITEVOICE_DEMO: "off",
    SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    SITEVOICE_JOBS: "on",
    SITEVOICE_JOBS_POLL_MS: "200",
    SITEVOICE_DRAIN_MS: "0",
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  const instances: Instance[] = ports.map((port) => ({
    port: port!,
    url: `http://127.0.0.1:${port}`,
    run: undefined as unknown as Run,
  }));
  const start = async (i: number, level = env.LOG_LEVEL) => {
    const instance = instances[i]!;
    instance.run = run(["serve"], cwd, { ...env, LOG_LEVEL: level, PORT: String(instance.port) });
    if (level === "info") return serving(instance.run);
    // Quiet, it prints no "listening" line: its liveness says it.
    await waitUntil(
      `instance ${i + 1} alive`,
      async () => {
        if (instance.run.child.exitCode !== null) {
          throw new Error(`instance ${i + 1} exited: ${instance.run.output()}`);
        }
        return fetch(`${instance.url}/v1/health/live`).then(
          (r) => r.ok,
          () => false,
        );
      },
      30_000,
    );
  };
  // The first alone: it migrates, makes the default workspace and prints the first key.
  await start(0, "info");
  const key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(instances[0]!.run.output())?.[1];
  if (key === undefined) throw new Error(`no first key: ${instances[0]!.run.output()}`);
  await Promise.all([start(1), start(2)]);

  const proxy: ChildProcess = spawn(
    "haproxy",
    ["-db", "-f", path.join(repo, "deploy/haproxy.cfg")],
    {
      env: {
        ...process.env,
        SITEVOICE_BIND: `127.0.0.1:${proxyPort}`,
        SITEVOICE_1: `127.0.0.1:${instances[0]!.port}`,
        SITEVOICE_2: `127.0.0.1:${instances[1]!.port}`,
        SITEVOICE_3: `127.0.0.1:${instances[2]!.port}`,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let proxyLog = "";
  proxy.stderr?.on("data", (chunk) => (proxyLog += chunk));
  const db = knexFactory({ client: "pg", connection: database.url, pool: { min: 0, max: 2 } });

  const cluster: Cluster = {
    url,
    instances,
    key,
    db,
    async kill(i) {
      const child = instances[i]!.run.child;
      const exited = instances[i]!.run.exited;
      child.kill("SIGKILL");
      await exited;
    },
    restart: (i) => start(i),
    async upstreams(n) {
      await waitUntil(
        `HAProxy counting ${n} instances up`,
        async () => {
          const states = await Promise.all(
            instances.map((instance) =>
              fetch(`${instance.url}/v1/health/ready`).then(
                (res) => res.status === 200,
                () => false,
              ),
            ),
          );
          return states.filter(Boolean).length >= n;
        },
        20_000,
      );
      // Two checks a second apart bring one back into HAProxy's pool.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
    },
    async stop() {
      proxy.kill("SIGTERM");
      for (const instance of instances) {
        if (instance.run?.child.exitCode === null) {
          instance.run.child.kill("SIGKILL");
          await instance.run.exited;
        }
      }
      await db.destroy();
      await database.drop();
      fs.rmSync(cwd, { recursive: true, force: true });
      if (proxyLog.includes("[ALERT]")) throw new Error(`HAProxy: ${proxyLog}`);
    },
  };
  await cluster.upstreams(3);
  return cluster;
}
