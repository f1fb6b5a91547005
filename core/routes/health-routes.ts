/** `GET /v1/health`: no auth; says whether the store answers and which plugins are loaded. */
import { Router } from "express";
import type { PluginHost } from "../host/plugin-host.ts";
import { sendData } from "../http/envelope.ts";
import { ping } from "../store/database.ts";
import type { Store } from "../store/store.ts";

export function healthRoutes(store: Store, plugins: PluginHost): Router {
  const router = Router();
  router.get("/v1/health", async (req, res) => {
    const started = process.hrtime.bigint();
    let database: { client: string; ok: boolean; latency_ms?: number; error?: string };
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
    const body = {
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
    sendData(req, res, body, { status: database.ok ? 200 : 503 });
  });
  return router;
}
