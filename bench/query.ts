/**
 * `npm run bench -- query`: the signed widget query (`POST /v1/:siteId/query`: Origin, the
 * session's HMAC over the raw body, rate limits, SearchParams schema and field whitelist, the REST
 * adapter's querystring GET, field picking, a `db_query` usage event, envelope) through the
 * service, against the floors doing the same work by hand (query-work.ts), all three against the
 * same fast REST backend in its own process (backend.ts).
 */
import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CONFORMANCE_FIELDS } from "../core/host/testing/index.ts";
import { startDrfServer } from "../test/helpers/drf-server.ts";
import { track } from "./cleanup.ts";
import type { QueryServiceConfig } from "./query-side.ts";
import {
  backendPath,
  type BenchSite,
  type Collection,
  type QueryFloorConfig,
} from "./query-work.ts";
import type { BenchSettings, Prepared } from "./rounds.ts";
import { startSide, type Side } from "./sides.ts";
import { signedPost } from "./widget-signing.ts";
import type { WrkLoad, WrkRequest } from "./wrk.ts";

/** The widget's searches, as the voice agent would send them. */
export const QUERIES = [
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

export const COLLECTION: Collection = {
  source: "/products/",
  searchable_fields: [...CONFORMANCE_FIELDS.searchable_fields],
  filterable_fields: [...CONFORMANCE_FIELDS.filterable_fields],
  display_fields: [...CONFORMANCE_FIELDS.display_fields],
};

const SIDE_ENTRY = new URL("./query-side.ts", import.meta.url);

/** Starts the replaying backend in a child process with `answers`; its port and a stop. */
async function startBackend(answers: [string, string][]) {
  const child = track(
    fork(fileURLToPath(new URL("./backend.ts", import.meta.url)), [], {
      execArgv: ["--import", "tsx"],
    }),
  );
  const port = new Promise<number>((resolve, reject) => {
    child.once("message", (m) => resolve((m as { port: number }).port));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the backend exited (${code})`)));
  });
  child.send(answers);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    port: await port,
    stop: async () => {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

/** The REST backend of the query path, up, and what its right answers contain. */
export interface QueryBackend {
  /** The adapter's `baseUrl`: `http://127.0.0.1:<port>/api`. */
  backendUrl: string;
  /** The part of each query's right answer that tells the queries apart, by query. */
  needles: string[];
  stop(): Promise<void>;
}

/** Records the backend's answers from the test suite's DRF stand-in and starts the backend. */
export async function startQueryBackend(): Promise<QueryBackend> {
  // What the backend answers each query: recorded once from the test suite's DRF stand-in.
  const paths = QUERIES.map((q) => `/api${backendPath({ products: COLLECTION }, q)}`);
  const drf = await startDrfServer();
  const answers: [string, string][] = [];
  for (const p of paths) answers.push([p, await (await fetch(`${drf.origin}${p}`)).text()]);
  await drf.close();
  // The part of a right answer that tells the queries apart (see wrk.ts: any of them will do).
  const needles = answers.map(([, text]) => {
    const { count, results } = JSON.parse(text) as { count: number; results: unknown[] };
    return `"total":${count},"returned":${results.length},`;
  });
  const backend = await startBackend(answers);
  return { backendUrl: `http://127.0.0.1:${backend.port}/api`, needles, stop: backend.stop };
}

/**
 * Every request, signed in advance; request n is site n mod sites, query (n div sites) mod
 * queries. The per-site query limits (30 a second, 300 a minute) would cap the service at 30
 * req/s, so the load spreads round-robin over many sites, each with its own limits and one
 * session. Not more than that needs: each site's row is read again when its 5 s cache entry
 * expires. With 10 s runs the service is under load for at most about 20 s of any minute, so
 * 100 sites (30,000 queries a minute) hold up to about 1,500 req/s; past that its 429s show
 * as errors and BENCH_SITES must grow.
 */
export function signedQueries(
  sites: readonly BenchSite[],
  needles: readonly string[],
): { load: WrkLoad; expected: string[] } {
  const requests: WrkRequest[] = [];
  const expected: string[] = [];
  for (const [q, query] of QUERIES.entries()) {
    const body = JSON.stringify(query);
    for (const site of sites) {
      requests.push(signedPost(site, `/v1/${site.siteId}/query`, body));
      expected.push(needles[q] as string);
    }
  }
  return { load: { requests, needles: [...needles] }, expected };
}

/** The service side, its backend and its load: what the soak reuses (soak.ts) without floors. */
export interface QueryService {
  service: Side<BenchSite[]>;
  backendUrl: string;
  load: WrkLoad;
  /** The needle of each request's right answer, by index into `load.requests`. */
  expected: string[];
  /** Closes the service side and the backend. */
  close(): Promise<void>;
}

/**
 * Records the backend's answers, starts the backend and the service side (with `execArgv` added
 * to its Node options), and signs every request in advance.
 */
export async function prepareQueryService(
  settings: Pick<BenchSettings, "siteCount">,
  dir: string,
  execArgv: string[] = [],
): Promise<QueryService> {
  const backend = await startQueryBackend();
  const { backendUrl } = backend;
  const serviceConfig: QueryServiceConfig = {
    dataDir: path.join(dir, "service"),
    backendUrl,
    collection: COLLECTION,
    siteCount: settings.siteCount,
  };
  const service = await startSide<BenchSite[]>(SIDE_ENTRY, "service", serviceConfig, execArgv);
  const { load, expected } = signedQueries(service.fixture, backend.needles);

  return {
    service,
    backendUrl,
    load,
    expected,
    close: async () => {
      await service.close();
      await backend.stop();
    },
  };
}

export async function prepareQuery(settings: BenchSettings, dir: string): Promise<Prepared> {
  const prepared = await prepareQueryService(settings, dir);
  const { service, backendUrl } = prepared;
  const floor = (name: "bare" | "express") => {
    const config: QueryFloorConfig = {
      backendUrl,
      collection: COLLECTION,
      sites: service.fixture,
      eventsFile: path.join(dir, `${name}-events.db`),
    };
    return startSide(SIDE_ENTRY, name, config);
  };
  const [bare, express] = await Promise.all([floor("bare"), floor("express")]);
  return {
    sides: { bare, express, service },
    load: prepared.load,
    about:
      `${settings.siteCount} sites × ${QUERIES.length} signed bodies, each site with one ` +
      `session; the backend replays the DRF stand-in's answers from its own process`,
    close: async () => {
      await Promise.all([bare.close(), express.close(), prepared.close()]);
    },
  };
}
