/** `GET /v1/health`: no auth; says whether the store answers and which plugins are loaded. */
import { Router } from "express";
import { healthReport } from "../health.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { sendData } from "../http/envelope.ts";
import type { Store } from "../store/store.ts";

export function healthRoutes(store: Store, plugins: PluginHost): Router {
  const router = Router();
  router.get("/v1/health", async (req, res) => {
    const report = await healthReport(store, plugins);
    sendData(req, res, report, { status: report.status === "ok" ? 200 : 503 });
  });
  return router;
}
