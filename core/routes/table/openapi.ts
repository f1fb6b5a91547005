/**
 * The OpenAPI 3.1 document of the route table, made from the routes' declarations (never
 * written by hand): each route's path, parameters, body (its JSON Schema from schemas/, bundled
 * into `components.schemas` with its references rewritten to point there), its answer in the
 * envelope, and every error it may answer with: its own and those of the phases its access and
 * limits run (an Origin refused, a bad signature, a key without the scope, a limit spent, a body
 * that is not valid JSON or too large).
 */
import type { ErrorCode } from "../../errors.ts";
import { errorCodes } from "../../errors.ts";
import { ERROR_STATUS } from "../../http/error-status.ts";
import { schemaOf, type SchemaName } from "../../validation/schema-validator.ts";
import type { Access, Route } from "./route.ts";

type Json = Record<string, unknown>;

/** The errors the phases answer with, by what the route declares. */
function phaseErrors(route: Route): ErrorCode[] {
  const codes: ErrorCode[] = ["internal_error", "service_unavailable"];
  const has = (access: Access) => route.access.includes(access);
  if (has("origin") || has("signed")) codes.push("site_not_found", "origin_not_allowed");
  if (has("signed")) codes.push("invalid_signature");
  if (route.access.some((a) => a.startsWith("key:"))) {
    codes.push("unauthorized", "forbidden", "rate_limited");
  }
  if (has("cookie")) codes.push("unauthorized");
  if ((route.limits ?? []).length > 0) codes.push("rate_limited");
  if (route.body !== undefined) {
    codes.push("invalid_request", "payload_too_large", "unsupported_media_type");
  }
  if ((route.query ?? []).length > 0) codes.push("invalid_request");
  return codes;
}

/** `/v1/:siteId/knowledge` as OpenAPI writes it: `/v1/{siteId}/knowledge`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");

const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);

/** Bundles `name`'s schema: no `$id`/`$schema`, its references into `components.schemas`. */
function bundled(name: SchemaName, needed: Set<SchemaName>): Json {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    const out: Json = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$id" || key === "$schema") continue;
      if (key === "$ref" && typeof inner === "string") {
        const [file, pointer = ""] = inner.split("#");
        const target = file === "" ? name : (file!.replace(/\.schema\.json$/, "") as SchemaName);
        if (target !== name) needed.add(target);
        out.$ref = `#/components/schemas/${target}${pointer}`;
        continue;
      }
      out[key] = rewrite(inner);
    }
    return out;
  };
  return rewrite(schemaOf(name)) as Json;
}

const META = {
  type: "object",
  required: ["request_id", "ts"],
  properties: {
    request_id: { type: "string", examples: ["req_01jd8y2x7k3m4n5p6q7r8s9t0v"] },
    ts: { type: "string", format: "date-time" },
  },
  additionalProperties: true,
};

const ERROR_ENVELOPE = {
  type: "object",
  required: ["success", "error", "meta"],
  properties: {
    success: { const: false },
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { enum: Object.keys(errorCodes) },
        message: { type: "string" },
        details: { type: "object", additionalProperties: true },
      },
    },
    meta: { $ref: "#/components/schemas/Meta" },
  },
};

const envelopeOf = (data: Json) => ({
  type: "object",
  required: ["success", "data", "meta"],
  properties: {
    success: { const: true },
    data,
    meta: { $ref: "#/components/schemas/Meta" },
  },
});

const SECURITY_SCHEMES = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    description: "An API key (`sv_live_…` or `sv_test_…`) with the route's scope.",
  },
  widgetSession: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Session",
    description:
      "The widget's session id, from `POST /v1/{siteId}/token`. Sent with X-Service-Signature " +
      "and from one of the site's origins (the Origin header).",
  },
  widgetSignature: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Signature",
    description:
      "`sha256=<hex HMAC-SHA256 of the raw body>`, keyed by the session's signing secret.",
  },
  dashboardCookie: {
    type: "apiKey",
    in: "cookie",
    name: "sv_session",
    description: "A dashboard member's session (`__Host-sv_session` over https).",
  },
};

function security(route: Route): Json[] {
  return route.access.flatMap((access): Json[] => {
    if (access === "signed") return [{ widgetSession: [], widgetSignature: [] }];
    if (access === "cookie") return [{ dashboardCookie: [] }];
    if (access.startsWith("key:")) return [{ apiKey: [access.slice("key:".length)] }];
    return [{}];
  });
}

function operation(route: Route, needed: Set<SchemaName>): Json {
  const responses: Json = {
    [String(route.response.status)]: {
      description: route.response.description,
      content: {
        "application/json": {
          schema:
            route.response.bare === true
              ? route.response.schema
              : envelopeOf(route.response.schema),
        },
      },
    },
  };
  for (const other of route.response.also ?? []) {
    responses[String(other.status)] = {
      ...(responses[String(route.response.status)] as Json),
      description: other.description,
    };
  }
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of [...route.errors, ...phaseErrors(route)]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = [...codes]
      .map((code) => `\`${code}\`: ${errorCodes[code].meaning}`)
      .join("; ");
    const error = { $ref: "#/components/schemas/ErrorEnvelope" };
    const answered = responses[String(status)] as
      { description: string; content: { "application/json": { schema: Json } } } | undefined;
    // A status answered both ways (a health check's 503 report, or a 503 error): either schema.
    responses[String(status)] =
      answered === undefined
        ? { description, content: { "application/json": { schema: error } } }
        : {
            description: `${answered.description}; or ${description}`,
            content: {
              "application/json": {
                schema: { oneOf: [answered.content["application/json"].schema, error] },
              },
            },
          };
  }
  const parameters = [
    ...pathParams(route.path).map((name) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
    })),
    ...(route.query ?? []).map((name) => ({ name, in: "query", schema: { type: "string" } })),
  ];
  const op: Json = {
    operationId: route.id,
    summary: route.summary,
    tags: route.tags,
    security: security(route),
    responses,
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body !== undefined) {
    needed.add(route.body);
    op.requestBody = {
      required: true,
      content: {
        "application/json": { schema: { $ref: `#/components/schemas/${route.body}` } },
      },
    };
  }
  return op;
}

/** The document of `routes`, for the service's `version`. */
export function openApiDocument(routes: readonly Route[], version: string): Json {
  const needed = new Set<SchemaName>();
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation(route, needed) };
  }
  const schemas: Json = { Meta: META, ErrorEnvelope: ERROR_ENVELOPE };
  for (let added = true; added;) {
    added = false;
    for (const name of [...needed].sort()) {
      if (name in schemas) continue;
      schemas[name] = bundled(name, needed);
      added = true;
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Sitevoice API",
      version,
      description:
        "The HTTP API of a Sitevoice service. Every answer is an envelope: " +
        "`{success: true, data, meta}` or `{success: false, error: {code, message, details?}, meta}`.",
    },
    paths,
    components: { schemas, securitySchemes: SECURITY_SCHEMES },
  };
}
