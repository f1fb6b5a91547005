/**
 * The health endpoints, without auth:
 * - `GET /v1/health/live`: 200 whenever the process answers (a process manager restarts one
 *   that does not);
 * - `GET /v1/health/ready`: 200 when this instance should get requests (its database and Redis
 *   answer, its job processor runs, it is not draining), 503 with the failing checks otherwise:
 *   what a load balancer checks;
 * - `GET /v1/health`: the whole report, the database's latency and every plugin's state, 503
 *   when the database does not answer.
 */
import { Router } from "express";
import type { Redis } from "ioredis";
import { healthReport, readiness } from "../health.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { sendData } from "../http/envelope.ts";
import type { Lifecycle } from "../lifecycle.ts";
import type { Store } from "../store/store.ts";

export function healthRoutes(parts: {
  store: Store;
  plugins: PluginHost;
  redis: Redis | undefined;
  lifecycle: Lifecycle;
}): Router {
  const router = Router();
  router.get("/v1/health", async (req, res) => {
    const report = await healthReport(parts.store, parts.plugins);
    const ready = await readiness(parts.store, parts.redis, parts.lifecycle);
    sendData(
      req,
      res,
      { ...report, ready: ready.status === "ready", checks: ready.checks },
      { status: report.status === "ok" ? 200 : 503 },
    );
  });
  router.get("/v1/health/live", (req, res) => sendData(req, res, { status: "alive" }));
  router.get("/v1/health/ready", async (req, res) => {
    const ready = await readiness(parts.store, parts.redis, parts.lifecycle);
    sendData(req, res, ready, { status: ready.status === "ready" ? 200 : 503 });
  });
  return router;
}
