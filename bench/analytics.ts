/**
 * `npm run bench -- analytics [--json]`: a busy site's analytics on a year of data, through the
 * service, on SQLite and then on PostgreSQL, each a fresh database (events-db.ts):
 *
 * 1. Load (analytics-load.ts): the store migrated by the service's migrations, then
 *    BENCH_ANALYTICS_EVENTS (10,000,000) usage events of one busy site over the last 365 days and
 *    a fortieth as many for each of four quiet sites, written by the database itself, then their
 *    rollups; each step timed. About 2 minutes on SQLite and 2.5 on PostgreSQL for 10 million
 *    on the 2-core development machine, and the whole benchmark about 15 minutes.
 * 2. Reads (analytics-read.ts): the service started on that database, jobs off (analytics-side.ts);
 *    `GET /v1/:siteId/analytics/summary` of the busy site, a year by day (the goal: p99 under
 *    50 ms), a month by day and a day by hour, in UTC and in Asia/Kathmandu (+5:45),
 *    BENCH_ANALYTICS_REQUESTS (200) one at a time after BENCH_ANALYTICS_WARMUP (20); then where
 *    their time goes (analytics-breakdown.ts).
 * 3. Ingestion (events-ingest.ts): the event benchmark's measured run against the same service
 *    and database, signed events to sites of their own, every acknowledged event looked for after
 *    the service closed (BENCH_EVENTS_PER_REQUEST, BENCH_EVENTS_RATE, BENCH_SECONDS,
 *    BENCH_WARMUP_SECONDS, BENCH_CONCURRENCY).
 *
 * A wrong answer to a read, or an ingestion run with an error or a lost event, is not a result:
 * exit 1. The goal is reported, not a condition of exit 0. Progress goes to stderr, the report to
 * stdout (analytics-report.ts). BENCH_ANALYTICS_DATABASES (sqlite,postgres).
 */
import os from "node:os";
import path from "node:path";
import type { AnalyticsFixture, AnalyticsServiceConfig } from "./analytics-side.ts";
import { breakDown, type BreakdownRow } from "./analytics-breakdown.ts";
import { loadUsage } from "./analytics-load.ts";
import {
  measureSummaries,
  SUMMARY_QUERIES,
  SUMMARY_ZONES,
  type SeriesResult,
} from "./analytics-read.ts";
import {
  analyticsJson,
  analyticsMarkdown,
  problemsOf,
  type AnalyticsRun,
  type DatabaseAnalytics,
} from "./analytics-report.ts";
import { makeTempDir, removeTempDir } from "./cleanup.ts";
import { postgresDatabase, sqliteDatabase, type DatabaseName } from "./events-db.ts";
import {
  ingestionSiteCount,
  judgeIngestion,
  readIngestionOptions,
  sendEvents,
  type IngestionOptions,
  type IngestionRun,
} from "./events-ingest.ts";
import { databasesSetting, intSetting } from "./env-settings.ts";
import type { BenchSettings } from "./rounds.ts";
import { startSide } from "./sides.ts";

const SIDE_ENTRY = new URL("./analytics-side.ts", import.meta.url);
const BUSY_SITE = "an-busy";
const QUIET_SITES = 4;

interface AnalyticsOptions {
  sites: Array<{ siteId: string; events: number }>;
  warmup: number;
  requests: number;
  ingestion: IngestionOptions;
}

function readOptions(): AnalyticsOptions {
  const events = intSetting("BENCH_ANALYTICS_EVENTS", 10_000_000, 100_000_000);
  const quiet = Array.from({ length: QUIET_SITES }, (_, k) => ({
    siteId: `an-quiet-${k + 1}`,
    events: Math.ceil(events / 40),
  }));
  return {
    sites: [{ siteId: BUSY_SITE, events }, ...quiet],
    warmup: intSetting("BENCH_ANALYTICS_WARMUP", 20, 100),
    // With the warm-up, under each read key's 1,000 requests a minute.
    requests: intSetting("BENCH_ANALYTICS_REQUESTS", 200, 900),
    ingestion: readIngestionOptions(),
  };
}

/** One database: load, start the service, read, ingest, close, count. */
async function runOn(
  name: DatabaseName,
  settings: BenchSettings,
  options: AnalyticsOptions,
): Promise<DatabaseAnalytics> {
  const dir = makeTempDir();
  const dataDir = path.join(dir, "service");
  const db = name === "sqlite" ? sqliteDatabase(dataDir) : await postgresDatabase(dataDir);
  try {
    const load = await loadUsage(db.database, { sites: options.sites, now: Date.now() }, (line) =>
      console.error(`analytics, ${name}: ${line}`),
    );
    const config: AnalyticsServiceConfig = {
      dataDir,
      databaseUrl: db.url,
      loadedSiteIds: options.sites.map((site) => site.siteId),
      readKeys: SUMMARY_ZONES.length * SUMMARY_QUERIES.length,
      ingestionSites: ingestionSiteCount(settings, options.ingestion),
    };
    const side = await startSide<AnalyticsFixture>(SIDE_ENTRY, "service", config);
    let reads: SeriesResult[], breakdown: BreakdownRow[], ingested: IngestionRun;
    try {
      console.error(`analytics, ${name}: reading summaries`);
      reads = await measureSummaries({
        origin: side.origin,
        siteId: BUSY_SITE,
        readKeys: side.fixture.readKeys,
        writeKey: side.fixture.writeKey,
        warmup: options.warmup,
        requests: options.requests,
      });
      breakdown = await breakDown(db.database, BUSY_SITE);
      console.error(`analytics, ${name}: ingesting`);
      ingested = await sendEvents(
        side,
        side.fixture.ingestion,
        dir,
        settings,
        options.ingestion,
        name,
      );
    } finally {
      // The service stores what is pending before it exits.
      await side.close();
    }
    const ingestion = await judgeIngestion(ingested, db.database, settings, options.ingestion);
    return { load, reads, breakdown, ingestion };
  } finally {
    await db.close();
    removeTempDir(dir);
  }
}

/** Runs the benchmark on each database; prints its report; true when every run is a result. */
export async function benchAnalytics(settings: BenchSettings, json: boolean): Promise<boolean> {
  const options = readOptions();
  const databases = databasesSetting("BENCH_ANALYTICS_DATABASES");
  const before = os.loadavg()[0] as number;
  const results: AnalyticsRun["results"] = {};
  for (const name of databases) results[name] = await runOn(name, settings, options);
  const run: AnalyticsRun = {
    settings,
    ingestionOptions: options.ingestion,
    sites: options.sites,
    warmup: options.warmup,
    requests: options.requests,
    results,
    loadAverage: { before, after: os.loadavg()[0] as number },
  };
  const problems = problemsOf(run);
  console.log(`\n## analytics\n`);
  console.log(analyticsMarkdown(run));
  for (const line of problems) console.log(`ERROR: ${line}`);
  if (problems.length > 0) console.log(`A run with errors is not a result: analytics is not one.`);
  if (json) console.log(JSON.stringify(analyticsJson(run)));
  return problems.length === 0;
}
