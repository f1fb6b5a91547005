/**
 * The service's health: whether the store answers (and how fast) and the state of every plugin.
 * `GET /v1/health` answers it; anything else watching the service can ask for it too.
 */
import type { Redis } from "ioredis";
import type { PluginHost } from "./host/plugin-host.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { ping } from "./store/database.ts";
import type { Store } from "./store/store.ts";

export interface HealthReport {
  /** `degraded` when the database does not answer. */
  status: "ok" | "degraded";
  database: { client: string; ok: boolean; latency_ms?: number; error?: string };
  plugins: {
    name: string;
    kind: string;
    type?: string;
    status: string;
    error?: string;
    note?: string;
  }[];
}

export async function healthReport(store: Store, plugins: PluginHost): Promise<HealthReport> {
  const started = process.hrtime.bigint();
  let database: HealthReport["database"];
  try {
    await ping(store.db);
    database = {
      client: store.client,
      ok: true,
      latency_ms: Number(process.hrtime.bigint() - started) / 1e6,
    };
  } catch {
    database = { client: store.client, ok: false, error: "database did not answer" };
  }
  return {
    status: database.ok ? "ok" : "degraded",
    database,
    plugins: plugins.list().map(({ name, kind, type, status, error, note }) => ({
      name,
      kind,
      type,
      status,
      error,
      note,
    })),
  };
}

/** How long the readiness check waits for Redis to answer a PING. */
const REDIS_PING_MS = 1_000;

/** `GET /v1/health/ready`: whether a load balancer should send this instance requests. */
export interface Readiness {
  status: "ready" | "not_ready";
  checks: {
    database: { ok: boolean; error?: string };
    /** Null when no Redis is configured (one instance alone needs none). */
    redis: { ok: boolean; error?: string } | null;
    /** `processing`: whether this instance runs jobs (SITEVOICE_JOBS); `ok`: running if so. */
    jobs: { ok: boolean; processing: boolean };
    /** True from SIGTERM on: the instance is about to stop. */
    draining: boolean;
  };
}

export async function readiness(
  store: Store,
  redis: Redis | undefined,
  lifecycle: Lifecycle,
): Promise<Readiness> {
  const [database, redisCheck] = await Promise.all([
    ping(store.db).then(
      () => ({ ok: true }),
      () => ({ ok: false, error: "database did not answer" }),
    ),
    redis === undefined ? Promise.resolve(null) : pingRedis(redis),
  ]);
  const { processing, running } = lifecycle.jobs;
  const jobs = { ok: !processing || running, processing };
  const ready = database.ok && (redisCheck?.ok ?? true) && jobs.ok && !lifecycle.draining;
  return {
    status: ready ? "ready" : "not_ready",
    checks: { database, redis: redisCheck, jobs, draining: lifecycle.draining },
  };
}

async function pingRedis(redis: Redis): Promise<{ ok: boolean; error?: string }> {
  // Not connected: ioredis would queue the PING until it reconnects, so the status decides.
  if (redis.status !== "ready") return { ok: false, error: `redis is ${redis.status}` };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), REDIS_PING_MS);
  });
  try {
    await Promise.race([redis.ping(), timeout]);
    return { ok: true };
  } catch {
    return { ok: false, error: "redis did not answer" };
  } finally {
    clearTimeout(timer);
  }
}
