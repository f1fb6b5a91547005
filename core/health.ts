/**
 * The service's health: whether the store answers (and how fast) and the state of every plugin.
 * `GET /v1/health` answers it; anything else watching the service can ask for it too.
 */
import type { PluginHost } from "./host/plugin-host.ts";
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
