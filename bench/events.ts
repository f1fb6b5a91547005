/**
 * `npm run bench -- events [--json]`: signed usage-event ingestion (`POST /v1/:siteId/analytics/
 * event`: Origin, the session's HMAC over the raw body, the per-site event limit, the body's
 * schema, the replay key, the event bus's batched insert with its rollups, 202) through the
 * service alone, on SQLite and then on PostgreSQL, each a fresh database, with every acknowledged
 * event looked for in the database after.
 *
 * Per database: the service in its own process (events-side.ts) makes the sites and one session
 * each; then the warm-up and measured run, the service closed and the stored events counted, as
 * events-ingest.ts describes (with its settings: BENCH_EVENTS_PER_REQUEST, BENCH_EVENTS_RATE).
 * Lost or duplicates other than 0, any error, or a request table that ran out: not a result,
 * exit 1.
 *
 * Settings: BENCH_SECONDS (10) measured, BENCH_WARMUP_SECONDS (3), BENCH_CONCURRENCY (32);
 * BENCH_EVENTS_DATABASES (sqlite,postgres).
 */
import os from "node:os";
import path from "node:path";
import { makeTempDir, removeTempDir } from "./cleanup.ts";
import { postgresDatabase, sqliteDatabase, type DatabaseName } from "./events-db.ts";
import {
  ingestionMarkdown,
  ingestionSiteCount,
  judgeIngestion,
  readIngestionOptions,
  sendEvents,
  type IngestionOptions,
  type IngestionResult,
  type IngestionRun,
} from "./events-ingest.ts";
import type { EventsSite } from "./events-service.ts";
import type { EventsServiceConfig } from "./events-side.ts";
import { databasesSetting } from "./env-settings.ts";
import type { BenchSettings } from "./rounds.ts";
import { startSide } from "./sides.ts";

const SIDE_ENTRY = new URL("./events-side.ts", import.meta.url);

/** One database: set up, warm-up, measured run, close, count. */
async function runOn(
  name: DatabaseName,
  settings: BenchSettings,
  options: IngestionOptions,
): Promise<IngestionResult> {
  const dir = makeTempDir();
  const dataDir = path.join(dir, "service");
  const db = name === "sqlite" ? sqliteDatabase(dataDir) : await postgresDatabase(dataDir);
  try {
    const config: EventsServiceConfig = {
      dataDir,
      databaseUrl: db.url,
      siteCount: ingestionSiteCount(settings, options),
    };
    const side = await startSide<EventsSite[]>(SIDE_ENTRY, "service", config);
    let ingested: IngestionRun;
    try {
      ingested = await sendEvents(side, side.fixture, dir, settings, options, name);
    } finally {
      // The service stores what is pending before it exits.
      await side.close();
    }
    return await judgeIngestion(ingested, db.database, settings, options);
  } finally {
    await db.close();
    removeTempDir(dir);
  }
}

function markdown(
  settings: BenchSettings,
  options: IngestionOptions,
  results: Partial<Record<DatabaseName, IngestionResult>>,
  load: { before: number; after: number },
): string {
  const any = Object.values(results)[0];
  return [
    `${settings.seconds} s measured after ${settings.warmupSeconds} s of warm-up per database; ` +
      `\`wrk -t1 -c${settings.concurrency} --latency\` from its own process; ` +
      `${options.eventsPerRequest} event(s) per request, every request unique and signed, ` +
      `dealt in turn over ${any?.sites ?? "?"} sites with one session each; ` +
      `${os.cpus().length} cores; Node ${process.version}; load average (1 min) before / after: ` +
      `${load.before.toFixed(2)} / ${load.after.toFixed(2)}.`,
    "",
    ...ingestionMarkdown(Object.entries(results), options),
  ].join("\n");
}

/** Runs the benchmark on each database; prints its report; true when every run is a result. */
export async function benchEvents(settings: BenchSettings, json: boolean): Promise<boolean> {
  const options = readIngestionOptions();
  const databases = databasesSetting("BENCH_EVENTS_DATABASES");
  const before = os.loadavg()[0] as number;
  const results: Partial<Record<DatabaseName, IngestionResult>> = {};
  for (const name of databases) results[name] = await runOn(name, settings, options);
  const load = { before, after: os.loadavg()[0] as number };
  console.log(`\n## events\n`);
  console.log(markdown(settings, options, results, load));
  const failed = Object.entries(results).filter(([, r]) => r.problems.length > 0);
  if (failed.length > 0) {
    console.log(`A run with errors or lost events is not a result: events is not one.`);
  }
  if (json) {
    console.log(
      JSON.stringify({
        benchmark: "events",
        node: process.version,
        cores: os.cpus().length,
        seconds: settings.seconds,
        warmup_seconds: settings.warmupSeconds,
        concurrency: settings.concurrency,
        events_per_request: options.eventsPerRequest,
        load_average: load,
        databases: results,
      }),
    );
  }
  return failed.length === 0;
}
