/**
 * `npm run bench -- query`: the signed widget query (`POST /v1/:siteId/query`: Origin, the
 * session's HMAC over the raw body, rate limits, SearchParams schema and field whitelist, the REST
 * adapter's querystring GET, field picking, a `db_query` usage event, envelope) through the
 * service, side by side with a bare `node:http` server doing the same work by hand (Origin, HMAC,
 * whitelist, forward) against the same fast local REST backend. Prints a Markdown table for
 * bench/RESULTS.md; every answer is checked (status and total), and a run with errors says so.
 */
import { fork } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { CONFORMANCE_FIELDS } from "../core/host/testing/index.ts";
import { loadSettings } from "../core/settings.ts";
import { startService } from "../core/http/service.ts";
import { startDrfServer } from "../test/helpers/drf-server.ts";
import { loadCalls, type Call, type LoadResult } from "./load.ts";

/** The widget's searches, as the voice agent would send them. */
const QUERIES = [
  {
    collection: "products",
    filters: [{ field: "color", operator: "eq", value: "blue" }],
    sort_by: "price",
    limit: 2,
  },
  { collection: "products", query: "sofa", limit: 5 },
  {
    collection: "products",
    filters: [
      { field: "price", operator: "lt", value: 300 },
      { field: "in_stock", operator: "eq", value: true },
    ],
    sort_by: "price",
    sort_direction: "desc",
  },
  {
    collection: "products",
    filters: [{ field: "category", operator: "in", value: ["chairs", "tables"] }],
    limit: 3,
  },
  {
    collection: "products",
    query: "wool",
    filters: [{ field: "released_on", operator: "gte", value: "2022-01-01" }],
  },
];

const COLLECTION: {
  source: string;
  searchable_fields: string[];
  filterable_fields: string[];
  display_fields: string[];
} = {
  source: "/products/",
  searchable_fields: [...CONFORMANCE_FIELDS.searchable_fields],
  filterable_fields: [...CONFORMANCE_FIELDS.filterable_fields],
  display_fields: [...CONFORMANCE_FIELDS.display_fields],
};
type Collection = typeof COLLECTION;

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
 * The bare server's whole check of a body and the backend path it becomes (DRF querystring
 * parameters: filters in order, then `q`, `ordering`, `limit`), or a Refusal.
 */
function backendPath(collections: Record<string, Collection>, body: unknown): string {
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

const sign = (secret: string, body: Buffer) =>
  crypto.createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex");

/** Starts the replaying backend in a child process with `answers`; its port and a stop. */
async function startBackend(answers: [string, string][]) {
  const child = fork(fileURLToPath(new URL("./backend.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx"],
  });
  const port = new Promise<number>((resolve, reject) => {
    child.once("message", (m) => resolve((m as { port: number }).port));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the backend exited (${code})`)));
  });
  child.send(answers);
  return { port: await port, stop: () => child.kill() };
}

export async function benchQuery({
  seconds = 5,
  concurrency = 32,
  warmupSeconds = 2,
  siteCount = 100,
} = {}): Promise<void> {
  // What the backend answers each query: recorded once from the test suite's DRF stand-in.
  const bodies = QUERIES.map((q) => Buffer.from(JSON.stringify(q)));
  const paths = QUERIES.map((q) => `/api${backendPath({ products: COLLECTION }, q)}`);
  const drf = await startDrfServer();
  const answers: [string, string][] = [];
  for (const p of paths) answers.push([p, await (await fetch(`${drf.origin}${p}`)).text()]);
  await drf.close();
  const expected = answers.map(([, text]) => {
    const { count, results } = JSON.parse(text) as { count: number; results: unknown[] };
    return Buffer.from(`"total":${count},"returned":${results.length},`);
  });

  const backend = await startBackend(answers);
  const baseUrl = `http://127.0.0.1:${backend.port}/api`;

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-bench-"));
  const service = await startService(
    loadSettings({
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      SITEVOICE_DATA_DIR: dataDir,
      SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
      SITEVOICE_SITES_DIR: "",
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    }),
  );

  // The per-site query limits (30 a second, 300 a minute) would cap the service at 30 req/s, so
  // the load spreads round-robin over many sites, each with its own limits and one session. Not
  // more than that needs: each site's row is read again when its 5 s cache entry expires.
  const operator = operatorPrincipal(service.boot.workspaceId, "bench");
  const sites: {
    siteId: string;
    origin: string;
    sessionId: string;
    secret: string;
  }[] = [];
  for (let i = 0; i < siteCount; i++) {
    const siteId = `bench-${String(i).padStart(4, "0")}`;
    const domain = `shop-${i}.example`;
    await service.sites.create(operator, {
      site_id: siteId,
      business_name: `Bench Shop ${i}`,
      business_description: "A furniture shop",
      domain,
      adapter: {
        type: "rest",
        config: { baseUrl, queryMode: "querystring" },
        collections: { products: COLLECTION },
      },
    });
    const { session, signingSecret } = await service.sessions.create(
      { site_id: siteId, workspace_id: service.boot.workspaceId },
      { ip: "127.0.0.1", userAgent: "bench" },
    );
    sites.push({
      siteId,
      origin: `https://${domain}`,
      sessionId: session.id,
      secret: signingSecret,
    });
  }

  // Every request, signed in advance; call n is site n mod sites, query (n div sites) mod queries.
  const calls: Call[] = [];
  for (let q = 0; q < QUERIES.length; q++) {
    for (const site of sites) {
      const body = bodies[q] as Buffer;
      const needle = expected[q] as Buffer;
      calls.push({
        path: `/v1/${site.siteId}/query`,
        method: "POST",
        headers: {
          Origin: site.origin,
          "Content-Type": "application/json",
          "X-Service-Session": site.sessionId,
          "X-Service-Signature": `sha256=${sign(site.secret, body)}`,
        },
        body,
        expect: (answer) => answer.includes(needle),
      });
    }
  }

  // The baseline, from the same sites and sessions held in memory: Origin by exact match, the
  // HMAC by timingSafeEqual, the body checked against the whitelist, the GET, the fields picked.
  const bareSites = new Map(
    sites.map((s) => [
      s.siteId,
      { origins: new Set([s.origin]), collections: { products: COLLECTION } },
    ]),
  );
  const bareSessions = new Map(
    sites.map((s) => [s.sessionId, { siteId: s.siteId, key: Buffer.from(s.secret, "utf8") }]),
  );
  const backendAgent = new http.Agent({ keepAlive: true });
  const signature = /^sha256=([0-9a-f]{64})$/;
  const answer = async (req: http.IncomingMessage, raw: Buffer) => {
    const siteId = /^\/v1\/([a-z0-9_-]+)\/query$/.exec(req.url ?? "")?.[1] ?? "";
    const site = bareSites.get(siteId);
    if (site === undefined || req.method !== "POST") throw new Refusal(404, "not found");
    const origin = req.headers.origin;
    if (origin === undefined || !site.origins.has(origin.toLowerCase())) {
      throw new Refusal(403, "origin not allowed");
    }
    const given = signature.exec(String(req.headers["x-service-signature"]))?.[1];
    const session = bareSessions.get(String(req.headers["x-service-session"]));
    const mac = session && crypto.createHmac("sha256", session.key).update(raw).digest();
    if (
      given === undefined ||
      mac === undefined ||
      session?.siteId !== siteId ||
      !crypto.timingSafeEqual(mac, Buffer.from(given, "hex"))
    ) {
      throw new Refusal(401, "invalid signature");
    }
    if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) {
      throw new Refusal(400, "not JSON");
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new Refusal(400, "not JSON");
    }
    const params = body as { limit?: number };
    const found = await getJson(backendAgent, `${baseUrl}${backendPath(site.collections, body)}`);
    const items = found.results
      .slice(0, params.limit ?? MAX_LIMIT)
      .map((item) => pick(item as Record<string, unknown>, COLLECTION.display_fields));
    return { success: true, total: found.count, returned: items.length, items };
  };
  const bare = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      answer(req, Buffer.concat(chunks)).then(
        (data) => {
          res.writeHead(200, {
            "Content-Type": "application/json",
            "Access-Control-Allow-Origin": req.headers.origin as string,
            Vary: "Origin",
          });
          res.end(JSON.stringify({ success: true, data }));
        },
        (error: unknown) => {
          const status = error instanceof Refusal ? error.status : 500;
          res.writeHead(status, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ success: false, error: { message: String(error) } }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const barePort = (bare.address() as { port: number }).port;

  let next = 0;
  const rotating = () => calls[next++ % calls.length] as Call;
  const targets: [string, string][] = [
    ["bare node:http", `http://127.0.0.1:${barePort}/`],
    ["service POST /v1/:siteId/query", `http://127.0.0.1:${service.port}/`],
  ];
  const loadBefore = os.loadavg()[0]!.toFixed(2);
  // Warm-up (JIT, pools, caches), not recorded.
  let serviceRequests = 0;
  const warmups: [string, LoadResult][] = [];
  for (const [name, url] of targets) {
    const warm = await loadCalls(url, rotating, { seconds: warmupSeconds, concurrency });
    if (name === targets[1]![0]) serviceRequests += warm.requests;
    warmups.push([`${name} (warm-up)`, warm]);
  }
  const results: [string, LoadResult][] = [];
  // Alternate twice so neither side always runs on a warmer machine.
  for (let round = 0; round < 2; round++) {
    for (const [name, url] of targets) {
      const result = await loadCalls(url, rotating, { seconds, concurrency });
      if (name === targets[1]![0]) serviceRequests += result.requests;
      results.push([name, result]);
    }
  }

  console.log(
    `\n${seconds} s per run after ${warmupSeconds} s of warm-up each, ` +
      `${concurrency} concurrent connections, ${siteCount} sites × ${QUERIES.length} signed ` +
      `bodies, SQLite, Node ${process.version}, ${os.cpus().length} cores\n`,
  );
  console.log("| run | server | requests | errors | req/s | p50 ms | p99 ms |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  results.forEach(([name, r], i) => {
    const cells = [Math.floor(i / 2) + 1, name, r.requests, r.errors, r.rps, r.p50ms, r.p99ms];
    console.log(`| ${cells.join(" | ")} |`);
  });
  const ratio = (of: (r: LoadResult) => number, runs: [string, LoadResult][]) => {
    const sum = (name: string) =>
      runs.filter(([n]) => n === name).reduce((total, [, r]) => total + of(r), 0);
    return (sum(targets[1]![0]) / sum(targets[0]![0])).toFixed(2);
  };
  const last = results.slice(-2);
  console.log(
    `\nRatio service / bare, run 2: ${ratio((r) => r.rps, last)}× req/s, ` +
      `p50 ${ratio((r) => r.p50ms, last)}×, p99 ${ratio((r) => r.p99ms, last)}×; ` +
      `both runs pooled: ${ratio((r) => r.requests, results)}× requests.`,
  );
  console.log(
    `Service queries per site, warm-up included: ${Math.ceil(serviceRequests / siteCount)} ` +
      `(limits: 300 a minute, 30 a second).`,
  );
  console.log(
    `Load average (1 min) before / after: ${loadBefore} / ${os.loadavg()[0]!.toFixed(2)}`,
  );
  const failed = [...warmups, ...results].filter(([, r]) => r.errors > 0);
  for (const [name, r] of failed) console.log(`ERRORS in ${name}: ${JSON.stringify(r.failures)}`);
  if (failed.length > 0) {
    console.log("A run with errors is not a result.");
    process.exitCode = 1;
  }

  bare.close();
  backendAgent.destroy();
  await service.close();
  backend.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
