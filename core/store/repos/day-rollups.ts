/**
 * The closed local days of the usage rollups (migration 013), by site and time zone: read by
 * summaries, written once a day has ended and a summary (or the nightly job) needs it, forgotten
 * when a cost added later changes one of its events.
 */
import type { Knex } from "knex";
import { rollupRowOf, type RollupRow } from "./usage-rollups.ts";

export const DAY_ROLLUPS_TABLE = "usage_day_rollups";
/** The type of the row that marks a day written, events or not. */
export const DAY_WRITTEN = "";
/** A local day starts at most this long before any instant in it (25 h days, offsets to ±14 h). */
const LONGEST_DAY_MS = 26 * 60 * 60_000;

/** A rollup row of a day: `bucket_start` is the day's start. */
export type DayRollupRow = Omit<RollupRow, "site_id">;

export class DayRollupsRepo {
  constructor(private readonly knex: Knex) {}

  /** The rows of the site's days in `zone` starting in [since, until), markers included. */
  async read(siteId: string, zone: string, since: number, until: number): Promise<DayRollupRow[]> {
    const rows = await this.knex(DAY_ROLLUPS_TABLE)
      .where({ site_id: siteId, timezone: zone })
      .where("day_start", ">=", since)
      .where("day_start", "<", until)
      .select("day_start", "type", "function_name", "events", "duration_seconds")
      .select("cost_cents", "costed");
    return rows.map((row: Record<string, unknown>) => rollupRowOf(row, Number(row.day_start)));
  }

  /**
   * Writes the days starting at `dayStarts` (each with its marker) with `rows`, replacing what
   * was there: two instances writing the same day write the same rows.
   */
  async write(
    siteId: string,
    zone: string,
    dayStarts: readonly number[],
    rows: readonly DayRollupRow[],
  ): Promise<void> {
    if (dayStarts.length === 0) return;
    const stored = [
      ...dayStarts.map((start) => ({
        bucket_start: start,
        type: DAY_WRITTEN,
        function_name: "",
        events: 0,
        duration_seconds: 0,
        cost_cents: 0,
        costed: 0,
      })),
      ...rows,
    ].map(({ bucket_start, ...sums }) => ({
      site_id: siteId,
      timezone: zone,
      day_start: bucket_start,
      ...sums,
    }));
    await this.knex.transaction(async (trx) => {
      await trx(DAY_ROLLUPS_TABLE)
        .where({ site_id: siteId, timezone: zone })
        .whereIn("day_start", [...dayStarts])
        .delete();
      for (let at = 0; at < stored.length; at += 500) {
        await trx(DAY_ROLLUPS_TABLE).insert(stored.slice(at, at + 500));
      }
    });
  }
}

/** Forgets the site's days, in every zone, that hold the instant `at` (inside `trx`). */
export async function forgetDaysAround(trx: Knex, siteId: string, at: number): Promise<void> {
  await trx(DAY_ROLLUPS_TABLE)
    .where("site_id", siteId)
    .where("day_start", ">", at - LONGEST_DAY_MS)
    .where("day_start", "<=", at)
    .delete();
}
