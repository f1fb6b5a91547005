/**
 * Where a summary's time goes (analytics.ts), measured in the harness's own process on the
 * service's database with the service's own code, one call at a time: the reads of
 * `AnalyticsService.summary` (the window's quarter-hour rollup rows, which an hour-bucket summary
 * reads and a day or week one reads only outside its closed days; the closed days' day rows,
 * with the rows each returns), the window's buckets in the zone (`bucketsOf`), the whole
 * `summary()` without HTTP, its site read answered from memory, and the same summary cold: with
 * the site's day rows deleted first, so it writes them (what the hourly job otherwise does). Each
 * figure but the cold one is the median of RUNS calls after one unmeasured call. The HTTP figures less the whole `summary()` are the HTTP path: Express,
 * the key's check and rate limit, the site read (cached), the JSON answer and the socket.
 */
import { AnalyticsService } from "../core/analytics/analytics-service.ts";
import {
  bucketsOf,
  summaryWindow,
  type Bucket,
  type Period,
} from "../core/analytics/summary-buckets.ts";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { Settings } from "../core/settings.ts";
import type { SiteService } from "../core/sites/site-service.ts";
import { openDatabase } from "../core/store/database.ts";
import { DAY_ROLLUPS_TABLE } from "../core/store/repos/day-rollups.ts";
import { Store } from "../core/store/store.ts";
import { SUMMARY_QUERIES, SUMMARY_ZONES } from "./analytics-read.ts";
import { median, round } from "./report.ts";

const RUNS = 7;

export interface BreakdownRow {
  zone: string;
  query: string;
  /** The window's quarter-hour rollup rows: milliseconds, and rows read back. */
  quarters_ms: number;
  quarter_rows: number;
  /** The window's kept day rows: milliseconds, and rows read back. */
  days_ms: number;
  day_rows: number;
  buckets_ms: number;
  /** The whole summary without HTTP, its days kept. */
  summary_ms: number;
  /** One summary writing the site's days first (none kept). */
  cold_ms: number;
}

/** Median milliseconds of `work` over RUNS calls, after one unmeasured call. */
async function timed(work: () => unknown): Promise<number> {
  await work();
  const times: number[] = [];
  for (let n = 0; n < RUNS; n++) {
    const from = performance.now();
    await work();
    times.push(performance.now() - from);
  }
  return round(median(times), 2);
}

/** Milliseconds of one call of `work` after the site's kept days are deleted. */
async function coldRun(store: Store, siteId: string, work: () => unknown): Promise<number> {
  await store.db.knex(DAY_ROLLUPS_TABLE).where({ site_id: siteId }).delete();
  const from = performance.now();
  await work();
  return round(performance.now() - from, 2);
}

/** Every zone and query of the HTTP series, on the busy site `siteId` of `database`. */
export async function breakDown(
  database: Settings["database"],
  siteId: string,
): Promise<BreakdownRow[]> {
  const store = new Store(openDatabase(database));
  const principal = operatorPrincipal("bench", "bench");
  const cold = (work: () => unknown) => coldRun(store, siteId, work);
  try {
    const rows: BreakdownRow[] = [];
    for (const zone of SUMMARY_ZONES) {
      // The site service's part of a summary is its cached read of the site: here, its zone.
      const sites = { get: async () => ({ timezone: zone }) } as unknown as SiteService;
      const analytics = new AnalyticsService({ store, sites });
      for (const query of SUMMARY_QUERIES) {
        const params = new URLSearchParams(query);
        const bucket = params.get("bucket") as Bucket;
        const window = summaryWindow(params.get("period") as Period, Date.now());
        const { since, until } = window;
        rows.push({
          zone,
          query,
          // First, so the zone's days are kept when the day rows are read.
          summary_ms: await timed(() => analytics.summary(principal, siteId, { window, bucket })),
          quarters_ms: await timed(() => store.rollups.rows(siteId, since, until)),
          quarter_rows: (await store.rollups.rows(siteId, since, until)).length,
          days_ms: await timed(() => store.dayRollups.read(siteId, zone, since, until)),
          day_rows: (await store.dayRollups.read(siteId, zone, since, until)).length,
          buckets_ms: await timed(() => bucketsOf(window, bucket, zone)),
          cold_ms: await cold(() => analytics.summary(principal, siteId, { window, bucket })),
        });
      }
    }
    return rows;
  } finally {
    await store.close();
  }
}
