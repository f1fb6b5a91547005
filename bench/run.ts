/**
 * `npm run bench [-- name …] [--json]`: the benchmarks named (`query`, `sites`, `events`,
 * `crawl`, `analytics`, `cluster`, `knowledge`), or all of them. `events` (events.ts) is of
 * another kind: the service alone, on SQLite and then on PostgreSQL, measuring signed event
 * ingestion and checking that no acknowledged event is lost; it reads its own settings too
 * (BENCH_EVENTS_*) and makes its own report. So is `crawl` (crawl.ts): the site crawler against a
 * local site, by sitemap and by links, next to a plain fetch loop; it needs no wrk
 * (BENCH_CRAWL_PAGES, BENCH_ROUNDS). So is `analytics` (analytics.ts): a year of a busy site's
 * events loaded into each database, its summaries read through the service, then the event
 * ingestion on the same data (BENCH_ANALYTICS_*; minutes of loading per database). So is
 * `cluster` (cluster.ts): HAProxy on deploy/haproxy.cfg in front of one and then three `sitevoice
 * serve` instances on PostgreSQL and Redis, in turn, the signed query path and event ingestion
 * through each (BENCH_REDIS_URL, the BENCH_EVENTS_* of events). So is `knowledge`
 * (knowledge.ts): the retrieval evaluation on the fixture site, then a generated site of 500
 * pages crawled by the service, its index's stored size, cold load and memory, and the signed
 * knowledge search under load (BENCH_KNOWLEDGE_*, BENCH_SECONDS, BENCH_WARMUP_SECONDS,
 * BENCH_CONCURRENCY). What follows is the three-sided kind.
 *
 * Each measures three sides, every one an HTTP server in its own process: a bare `node:http`
 * server and a minimal Express 5 app doing the same work through one shared work function (so
 * only the framework differs; floors.ts), and the service itself (`startService`). Debian's
 * `wrk` loads them from yet another process (wrk.ts); the query benchmark's REST backend runs in
 * a process of its own too. After a warm-up per side, rounds of bare, express, service in turn
 * (rounds.ts); each side measures its own CPU time per request (sides.ts). The report is
 * Markdown for bench/RESULTS.md; with `--json` the last line of stdout is the summary of the last
 * benchmark as one JSON object (report.ts). A run with any error is not a result: exit 1.
 *
 * Settings, from the environment: BENCH_SECONDS (10) per run, BENCH_WARMUP_SECONDS (3) per side,
 * BENCH_ROUNDS (3), BENCH_CONCURRENCY (32) open connections, BENCH_SITES (100) the sites the
 * query benchmark spreads over. Every child process and temp dir is gone when this exits,
 * Ctrl-C included (cleanup.ts).
 */
import os from "node:os";
import { installCleanup, makeTempDir, removeTempDir } from "./cleanup.ts";
import { benchAnalytics } from "./analytics.ts";
import { benchCluster } from "./cluster.ts";
import { benchCrawl } from "./crawl.ts";
import { benchEvents } from "./events.ts";
import { benchKnowledge } from "./knowledge.ts";
import { prepareQuery } from "./query.ts";
import { failures, markdown, summarize } from "./report.ts";
import { runRounds, type BenchSettings, type Prepared } from "./rounds.ts";
import { prepareSites } from "./sites.ts";
import { hasWrk } from "./wrk.ts";

const benchmarks: Record<string, (settings: BenchSettings, dir: string) => Promise<Prepared>> = {
  /** Signed POST /v1/:siteId/query against a fast local REST backend. */
  query: prepareQuery,
  /** Authenticated GET /v1/sites/:id. */
  sites: prepareSites,
};

/** Benchmarks that run and report themselves; true when the run is a result. */
const standalone: Record<string, (settings: BenchSettings, json: boolean) => Promise<boolean>> = {
  /** Signed POST /v1/:siteId/analytics/event on SQLite and PostgreSQL, zero loss checked. */
  events: benchEvents,
  /** The site crawler, by sitemap and by links, against a fetch loop of the same pages. */
  crawl: benchCrawl,
  /** A busy site's summaries over a year of events, and ingestion on them; both databases. */
  analytics: benchAnalytics,
  /** The query path and event ingestion through HAProxy, one instance against three. */
  cluster: benchCluster,
  /** Retrieval, a 500-page site crawled, its index stored, loaded and searched under load. */
  knowledge: benchKnowledge,
};

/** Benchmarks that make their own requests: they run without wrk installed. */
const withoutWrk = new Set(["crawl"]);

/** Exits 2 with `message`: a usage error, before anything started. */
function usage(message: string): never {
  console.error(message);
  process.exit(2);
}

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw.trim() === "" ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) usage(`${name} must be a positive integer: ${raw}`);
  return value;
}

async function bench(name: string, settings: BenchSettings, json: boolean): Promise<boolean> {
  if (Object.hasOwn(standalone, name)) return standalone[name]!(settings, json);
  const dir = makeTempDir();
  const before = os.loadavg()[0] as number;
  const prepared = await benchmarks[name]!(settings, dir);
  let runs;
  try {
    runs = await runRounds(prepared, settings, dir);
  } finally {
    await prepared.close();
  }
  removeTempDir(dir);
  const load = { before, after: os.loadavg()[0] as number };
  const summary = summarize(name, runs, settings);
  console.log(`\n## ${name}\n`);
  console.log(markdown(summary, runs, settings, prepared.about, load));
  const failed = failures(runs);
  for (const line of failed) console.log(`ERRORS in ${line}`);
  if (failed.length > 0) console.log(`A run with errors is not a result: ${name} is not one.`);
  if (json) console.log(JSON.stringify(summary));
  return failed.length === 0;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes("soak")) return (await import("./soak.ts")).runSoak(args);
  const json = args.includes("--json");
  const names = args.filter((arg) => arg !== "--json");
  const known = [...Object.keys(benchmarks), ...Object.keys(standalone)];
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    usage(`unknown benchmark ${unknown.join(", ")}; choose from ${known.join(", ")}`);
  }
  const selected = names.length > 0 ? names : known;
  if (selected.some((name) => !withoutWrk.has(name)) && !hasWrk()) {
    usage("wrk is not installed; the benchmarks need it: apt-get install wrk");
  }
  const settings: BenchSettings = {
    seconds: setting("BENCH_SECONDS", 10),
    warmupSeconds: setting("BENCH_WARMUP_SECONDS", 3),
    rounds: setting("BENCH_ROUNDS", 3),
    concurrency: setting("BENCH_CONCURRENCY", 32),
    siteCount: setting("BENCH_SITES", 100),
  };
  installCleanup();
  let ok = true;
  for (const name of selected) {
    ok = (await bench(name, settings, json)) && ok;
  }
  process.exitCode = ok ? 0 : 1;
}

// Exiting explicitly also ends children a failure left running (their IPC channels would keep
// this process alive); the exit hook kills them and removes the temp dirs.
main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
