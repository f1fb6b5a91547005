/**
 * The query benchmark's work on the floors (bare and express alike): what the service does for a
 * signed `POST /v1/:siteId/query`, by hand. Origin by exact match, the session's HMAC over the
 * raw body checked with timingSafeEqual, `JSON.parse`, the collection and every field checked
 * against the whitelist, the DRF query string, a GET to the backend through a keep-alive
 * `http.Agent`, the items cut to `limit` and the display fields, a `db_query` usage event batched
 * into SQLite (usage-batch.ts), and the envelope with `meta: {request_id, ts}`. Sites and
 * sessions are held in memory, from the fixture the service side made.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { Answer, Work } from "./floors.ts";
import { FixedWindow, requestId } from "./floor-limits.ts";
import { UsageBatch } from "./usage-batch.ts";

export interface Collection {
  source: string;
  searchable_fields: string[];
  filterable_fields: string[];
  display_fields: string[];
}

/** A site and its one session, as the service side made them. */
export interface BenchSite {
  siteId: string;
  origin: string;
  sessionId: string;
  secret: string;
}

export interface QueryFloorConfig {
  backendUrl: string;
  collection: Collection;
  sites: BenchSite[];
  /** The floor's own SQLite file for its usage events. */
  eventsFile: string;
}

const OPERATORS: Record<string, string> = {
  eq: "",
  neq: "__neq",
  gt: "__gt",
  gte: "__gte",
  lt: "__lt",
  lte: "__lte",
  contains: "__contains",
  in: "__in",
};
const MAX_LIMIT = 10;

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const isScalar = (v: unknown) =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/**
 * The floors' whole check of a body and the backend path it becomes (DRF querystring
 * parameters: filters in order, then `q`, `ordering`, `limit`), or a Refusal.
 */
export function backendPath(collections: Record<string, Collection>, body: unknown): string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Refusal(400, "the body must be an object");
  }
  const params = body as Record<string, unknown>;
  const name = params.collection;
  const collection =
    typeof name === "string" && Object.hasOwn(collections, name) ? collections[name] : undefined;
  if (collection === undefined) throw new Refusal(422, "unknown collection");
  const allowed = new Set([
    ...collection.searchable_fields,
    ...collection.filterable_fields,
    ...collection.display_fields,
  ]);
  const qs = new URLSearchParams();
  const filters = params.filters ?? [];
  if (!Array.isArray(filters) || filters.length > 20) throw new Refusal(400, "bad filters");
  for (const filter of filters as Record<string, unknown>[]) {
    const { field, operator, value } = filter ?? {};
    if (typeof field !== "string" || !allowed.has(field)) throw new Refusal(422, "bad field");
    if (typeof operator !== "string" || !Object.hasOwn(OPERATORS, operator)) {
      throw new Refusal(422, "bad operator");
    }
    const many = operator === "in";
    if (many ? !Array.isArray(value) || !value.every(isScalar) : !isScalar(value)) {
      throw new Refusal(422, "bad value");
    }
    qs.append(`${field}${OPERATORS[operator]}`, many ? (value as unknown[]).join(",") : `${value}`);
  }
  const text = typeof params.query === "string" ? params.query.trim() : "";
  if (text !== "") qs.append("q", text);
  const sortBy = params.sort_by;
  if (sortBy !== undefined) {
    if (typeof sortBy !== "string" || !allowed.has(sortBy)) throw new Refusal(422, "bad sort_by");
    qs.append("ordering", `${params.sort_direction === "desc" ? "-" : ""}${sortBy}`);
  }
  const limit = params.limit ?? MAX_LIMIT;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIMIT) {
    throw new Refusal(422, "bad limit");
  }
  qs.append("limit", String(limit));
  return `${collection.source}?${qs}`;
}

/** `{count, results}` of a GET through a keep-alive pool, as the service's guarded fetch has. */
function getJson(agent: http.Agent, url: string): Promise<{ count: number; results: unknown[] }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { accept: "application/json" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Refusal(502, `backend ${res.statusCode}`));
          else {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
            } catch (error) {
              reject(error);
            }
          }
        });
      })
      .on("error", reject);
  });
}

function pick(item: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) if (Object.hasOwn(item, field)) out[field] = item[field];
  return out;
}

const meta = (id: string) => ({ request_id: id, ts: new Date().toISOString() });

/** The floors' work for `config`, and a close that stores the pending events. */
export function queryWork(config: QueryFloorConfig): { work: Work; close(): void } {
  const { backendUrl, collection } = config;
  const collections = { products: collection };
  const sites = new Map(config.sites.map((s) => [s.siteId, new Set([s.origin])]));
  const sessions = new Map(
    config.sites.map((s) => [
      s.sessionId,
      { siteId: s.siteId, key: Buffer.from(s.secret, "utf8") },
    ]),
  );
  // The service's two per-site query limits (core/routes/widget-routes.ts).
  const perSecond = new FixedWindow(30, 1);
  const perMinute = new FixedWindow(300, 60);
  const agent = new http.Agent({ keepAlive: true });
  const events = new UsageBatch(config.eventsFile);
  const signature = /^sha256=([0-9a-f]{64})$/;

  const answer = async (
    id: string,
    siteId: string,
    headers: http.IncomingHttpHeaders,
    raw: Buffer,
  ): Promise<Answer> => {
    const origins = sites.get(siteId);
    if (origins === undefined) throw new Refusal(404, "site not found");
    const origin = headers.origin;
    if (origin === undefined || !origins.has(origin.toLowerCase())) {
      throw new Refusal(403, "origin not allowed");
    }
    const given = signature.exec(String(headers["x-service-signature"]))?.[1];
    const sessionId = String(headers["x-service-session"]);
    const session = sessions.get(sessionId);
    const mac = session && crypto.createHmac("sha256", session.key).update(raw).digest();
    if (
      given === undefined ||
      mac === undefined ||
      session?.siteId !== siteId ||
      !crypto.timingSafeEqual(mac, Buffer.from(given, "hex"))
    ) {
      throw new Refusal(401, "invalid signature");
    }
    if (!/^application\/json\b/i.test(headers["content-type"] ?? "")) {
      throw new Refusal(400, "not JSON");
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new Refusal(400, "not JSON");
    }
    const second = perSecond.consume(siteId);
    const minute = perMinute.consume(siteId);
    if (second === undefined || minute === undefined) throw new Refusal(429, "rate limited");
    const params = body as { collection?: unknown; filters?: unknown[]; limit?: number };
    const found = await getJson(agent, `${backendUrl}${backendPath(collections, body)}`);
    const items = found.results
      .slice(0, params.limit ?? MAX_LIMIT)
      .map((item) => pick(item as Record<string, unknown>, collection.display_fields));
    // As core/widget/usage-service.ts records a query; not awaited, as the service's route.
    events.add({
      id: crypto.randomUUID(),
      site_id: siteId,
      session_id: sessionId,
      type: "db_query",
      metadata: JSON.stringify({
        session_id: sessionId,
        collection: params.collection,
        filters: Array.isArray(params.filters) ? params.filters.length : 0,
      }),
      created_at: Date.now(),
    });
    return {
      status: 200,
      headers: { ...second, ...minute, "Access-Control-Allow-Origin": origin, Vary: "Origin" },
      body: {
        success: true,
        data: { success: true, total: found.count, returned: items.length, items },
        meta: meta(id),
      },
    };
  };

  return {
    work: async (params, headers, raw) => {
      const id = requestId();
      const answered = await answer(id, params.siteId ?? "", headers, raw).catch(
        (error: unknown) => {
          if (!(error instanceof Refusal)) throw error;
          const body = { success: false, error: { message: error.message }, meta: meta(id) };
          return { status: error.status, body } as Answer;
        },
      );
      return { ...answered, headers: { ...answered.headers, "X-Request-Id": id } };
    },
    close() {
      agent.destroy();
      events.close();
    },
  };
}
