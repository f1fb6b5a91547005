/**
 * The health endpoints, without auth, declared in the route table:
 * - `GET /v1/health/live`: 200 whenever the process answers (a process manager restarts one
 *   that does not);
 * - `GET /v1/health/ready`: 200 when this instance should get requests (its database and Redis
 *   answer, its job processor runs, it is not draining), 503 with the failing checks otherwise:
 *   what a load balancer checks;
 * - `GET /v1/health`: the whole report, the database's latency and every plugin's state, 503
 *   when the database does not answer.
 */
import type { Redis } from "ioredis";
import { healthReport, readiness } from "../health.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { Lifecycle } from "../lifecycle.ts";
import type { Store } from "../store/store.ts";
import type { Route } from "./table/route.ts";

export interface HealthRouteParts {
  store: Store;
  plugins: PluginHost;
  redis: Redis | undefined;
  lifecycle: Lifecycle;
}

const CHECK = {
  type: "object",
  required: ["ok"],
  properties: { ok: { type: "boolean" }, error: { type: "string" } },
};

const READINESS = {
  type: "object",
  required: ["status", "checks"],
  properties: {
    status: { enum: ["ready", "not_ready"] },
    checks: {
      type: "object",
      required: ["database", "redis", "jobs", "draining"],
      properties: {
        database: CHECK,
        redis: { oneOf: [CHECK, { type: "null" }] },
        jobs: {
          type: "object",
          required: ["ok", "processing"],
          properties: { ok: { type: "boolean" }, processing: { type: "boolean" } },
        },
        draining: { type: "boolean" },
      },
    },
  },
};

const REPORT = {
  type: "object",
  required: ["status", "database", "plugins", "ready", "checks"],
  properties: {
    status: { enum: ["ok", "degraded"] },
    database: {
      type: "object",
      required: ["client", "ok"],
      properties: {
        client: { type: "string" },
        ok: { type: "boolean" },
        latency_ms: { type: "number" },
        error: { type: "string" },
      },
    },
    plugins: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "kind", "status"],
        properties: {
          name: { type: "string" },
          kind: { type: "string" },
          type: { type: "string" },
          status: { type: "string" },
          error: { type: "string" },
          note: { type: "string" },
        },
      },
    },
    ready: { type: "boolean" },
    checks: READINESS.properties.checks,
  },
};

export function healthRoutes(parts: HealthRouteParts): Route[] {
  return [
    {
      id: "getHealth",
      method: "get",
      path: "/v1/health",
      summary: "The whole health report: the database, every plugin, readiness",
      tags: ["health"],
      access: ["none"],
      response: {
        status: 200,
        description: "The database answers",
        schema: REPORT,
        also: [{ status: 503, description: "The database does not answer (`degraded`)" }],
      },
      errors: [],
      async handle() {
        const report = await healthReport(parts.store, parts.plugins);
        const ready = await readiness(parts.store, parts.redis, parts.lifecycle);
        return {
          data: { ...report, ready: ready.status === "ready", checks: ready.checks },
          status: report.status === "ok" ? 200 : 503,
        };
      },
    },
    {
      id: "getLiveness",
      method: "get",
      path: "/v1/health/live",
      summary: "Whether the process answers",
      tags: ["health"],
      access: ["none"],
      response: {
        status: 200,
        description: "It does",
        schema: {
          type: "object",
          required: ["status"],
          properties: { status: { const: "alive" } },
        },
      },
      errors: [],
      handle: async () => ({ data: { status: "alive" } }),
    },
    {
      id: "getReadiness",
      method: "get",
      path: "/v1/health/ready",
      summary: "Whether a load balancer should send this instance requests",
      tags: ["health"],
      access: ["none"],
      response: {
        status: 200,
        description: "Ready",
        schema: READINESS,
        also: [{ status: 503, description: "Not ready: the failing checks say why" }],
      },
      errors: [],
      async handle() {
        const ready = await readiness(parts.store, parts.redis, parts.lifecycle);
        return { data: ready, status: ready.status === "ready" ? 200 : 503 };
      },
    },
  ];
}
