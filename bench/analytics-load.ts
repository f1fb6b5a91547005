/**
 * The analytics benchmark's data (analytics.ts): a year of usage events of one busy site and a few
 * quiet ones, and their usage rollups, in the service's own tables and indexes (the store is
 * migrated first, by the service's migrations, as the service migrates it at start).
 *
 * The database writes the rows itself: per chunk and site one `INSERT … SELECT` over a series of
 * row numbers (generate_series on PostgreSQL, a recursive CTE on SQLite; usage-rows-sql.ts), so
 * no row passes through Node. The chunks go forward in time over every site together, as the
 * service would have stored them. Then the rollups of all of them by one `INSERT … SELECT … GROUP
 * BY`, the query with which migration 009 rolls up the events stored before it, and a check that
 * they count every event. PostgreSQL is then vacuumed and analyzed, as its autovacuum would have
 * done long before a real site reached a year of events; SQLite is left as the service leaves it
 * (the service never runs ANALYZE).
 */
import fs from "node:fs";
import type { Settings } from "../core/settings.ts";
import { migrate, openDatabase, type Database } from "../core/store/database.ts";
import { ROLLUP_GRAIN_MS } from "../core/store/migrations/009-usage-rollups.ts";
import { insertUsageRows, type UsageSeries } from "./usage-rows-sql.ts";

export interface LoadPlan {
  /** Events of each site, the busy one first. */
  sites: Array<{ siteId: string; events: number }>;
  /** The events are spread over the year before this instant. */
  now: number;
}

export interface LoadResult {
  events: number;
  rollups: number;
  /** Wall time of each step, in seconds. */
  seconds: { events: number; rollups: number; vacuum: number };
  /** The database's size on disk after the load. */
  bytes: number;
}

/** Rows of the busy site per statement (the quiet sites' in proportion). */
const CHUNK = 250_000;
const YEAR_MS = 365 * 24 * 60 * 60_000;
/** The last session starts this long before `now`, so no event lies in the future. */
const END_MARGIN_MS = 10 * 60_000;

const seconds = (from: number) => Math.round((performance.now() - from) / 100) / 10;

/** Migrates the store, loads `plan` and rolls it up; `progress` hears of every chunk. */
export async function loadUsage(
  database: Settings["database"],
  plan: LoadPlan,
  progress: (line: string) => void,
): Promise<LoadResult> {
  const db = openDatabase(database);
  try {
    await migrate(db);
    let from = performance.now();
    const events = await insertEvents(db, plan, progress);
    const eventSeconds = seconds(from);
    from = performance.now();
    const rollups = await insertRollups(db, events);
    const rollupSeconds = seconds(from);
    progress(`${rollups.toLocaleString("en")} rollup rows in ${rollupSeconds} s`);
    from = performance.now();
    if (db.client === "postgres") await db.knex.raw("vacuum analyze usage_events, usage_rollups");
    return {
      events,
      rollups,
      seconds: { events: eventSeconds, rollups: rollupSeconds, vacuum: seconds(from) },
      bytes: await sizeOf(db, database),
    };
  } finally {
    await db.knex.destroy();
  }
}

async function insertEvents(
  db: Database,
  plan: LoadPlan,
  progress: (line: string) => void,
): Promise<number> {
  const busy = plan.sites[0]!.events;
  const chunks = Math.ceil(busy / CHUNK);
  const from = plan.now - YEAR_MS;
  const started = performance.now();
  let written = 0;
  for (let c = 0; c < chunks; c++) {
    for (const [siteNo, site] of plan.sites.entries()) {
      const series: UsageSeries = {
        siteId: site.siteId,
        siteNo,
        events: site.events,
        from,
        span: YEAR_MS - END_MARGIN_MS,
        rows: [
          Math.floor((c * site.events) / chunks),
          Math.floor(((c + 1) * site.events) / chunks),
        ],
      };
      await insertUsageRows(db, series);
      written += series.rows[1] - series.rows[0];
    }
    progress(`${written.toLocaleString("en")} events in ${seconds(started)} s`);
  }
  return written;
}

/** Migration 009's backfill: every stored event's quarter hour, type and function, summed. */
async function insertRollups(db: Database, events: number): Promise<number> {
  const bucket = `created_at - (created_at % ${ROLLUP_GRAIN_MS})`;
  await db.knex.raw(
    "insert into usage_rollups" +
      " (site_id, bucket_start, type, function_name, events, duration_seconds, cost_cents, costed)" +
      ` select site_id, ${bucket}, type, coalesce(function_name, ''), count(*),` +
      " coalesce(sum(duration_seconds), 0), coalesce(sum(cost_cents), 0), count(cost_cents)" +
      ` from usage_events group by site_id, ${bucket}, type, coalesce(function_name, '')`,
  );
  const [counted] = (await db
    .knex("usage_rollups")
    .count({ rows: "*" })
    .sum({ events: "events" })) as Array<{ rows: number | string; events: number | string }>;
  if (Number(counted?.events) !== events) {
    throw new Error(`the rollups count ${counted?.events} events of the ${events} stored`);
  }
  return Number(counted?.rows);
}

async function sizeOf(db: Database, database: Settings["database"]): Promise<number> {
  if (db.client === "postgres") {
    const { rows } = (await db.knex.raw(
      "select pg_database_size(current_database()) as bytes",
    )) as {
      rows: Array<{ bytes: number | string }>;
    };
    return Number(rows[0]?.bytes);
  }
  const file = database.filename!;
  const wal = `${file}-wal`;
  return fs.statSync(file).size + (fs.existsSync(wal) ? fs.statSync(wal).size : 0);
}
