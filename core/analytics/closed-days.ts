/**
 * The closed local days of a site's summaries: each local day that ended over SETTLE_MS ago is
 * read as day rows (core/store/repos/day-rollups.ts), kept from the quarter-hour rollups the first
 * time a summary or the hourly job needs it; the rest of a window is read as quarter hours. A
 * year by day reads a few thousand rows instead of every quarter hour's.
 */
import type { Store } from "../store/store.ts";
import { DAY_WRITTEN, type DayRollupRow } from "../store/repos/day-rollups.ts";
import { addSums } from "../store/repos/usage-rollups.ts";
import {
  bucketIndex,
  bucketsOf,
  summaryWindow,
  type LocalDay,
  type Window,
} from "./summary-buckets.ts";

/**
 * How long after a local day ends it is kept as day rows: events are stamped when recorded, so
 * none can arrive for it after that, whatever an instance's clock says within that margin.
 */
const SETTLE_MS = 60 * 60_000;

export class ClosedDays {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /**
   * The window's rollup rows: its closed days among `days` (the local days wholly inside it) as
   * day rows, the rest as quarter hours.
   */
  async rowsOf(
    siteId: string,
    zone: string,
    window: Window,
    days: readonly LocalDay[],
  ): Promise<DayRollupRow[]> {
    const { rollups } = this.store;
    const closed = this.closed(days);
    if (closed.length === 0) return rollups.rows(siteId, window.since, window.until);
    const first = closed[0]!.start;
    const last = closed.at(-1)!.end;
    return [
      ...(window.since < first ? await rollups.rows(siteId, window.since, first) : []),
      ...(await this.keep(siteId, zone, closed)).rows,
      ...(last < window.until ? await rollups.rows(siteId, last, window.until) : []),
    ];
  }

  /** Keeps the site's closed days of the last year in `zone`; how many days it wrote. */
  async keepYear(siteId: string, zone: string): Promise<number> {
    const { days } = bucketsOf(summaryWindow("year", this.now()), "day", zone);
    const closed = this.closed(days);
    return closed.length === 0 ? 0 : (await this.keep(siteId, zone, closed)).written;
  }

  private closed(days: readonly LocalDay[]): LocalDay[] {
    const before = this.now() - SETTLE_MS;
    return days.filter((day) => day.end <= before);
  }

  /** The day rows of `closed` (consecutive closed days): those kept, and the missing written. */
  private async keep(
    siteId: string,
    zone: string,
    closed: readonly LocalDay[],
  ): Promise<{ rows: DayRollupRow[]; written: number }> {
    const { rollups, dayRollups } = this.store;
    const kept = await dayRollups.read(siteId, zone, closed[0]!.start, closed.at(-1)!.end);
    const marked = new Set(
      kept.filter((row) => row.type === DAY_WRITTEN).map((row) => row.bucket_start),
    );
    const rows = kept.filter((row) => row.type !== DAY_WRITTEN);
    let written = 0;
    for (const run of runsOf(closed.filter((day) => !marked.has(day.start)))) {
      const sums = sumIntoDays(await rollups.rows(siteId, run[0]!.start, run.at(-1)!.end), run);
      await dayRollups.write(
        siteId,
        zone,
        run.map((day) => day.start),
        sums,
      );
      rows.push(...sums);
      written += run.length;
    }
    return { rows, written };
  }
}

/** Runs of consecutive days (each starting where the one before ended). */
function runsOf(days: readonly LocalDay[]): LocalDay[][] {
  const runs: LocalDay[][] = [];
  for (const day of days) {
    const run = runs.at(-1);
    if (run !== undefined && run.at(-1)!.end === day.start) run.push(day);
    else runs.push([day]);
  }
  return runs;
}

/** Quarter-hour rows summed into the days of `run` (consecutive), a row per day, type, function. */
function sumIntoDays(quarters: readonly DayRollupRow[], run: readonly LocalDay[]): DayRollupRow[] {
  const dayStarts = run.map((day) => day.start);
  const sums = new Map<string, DayRollupRow>();
  for (const row of quarters) {
    const start = run[bucketIndex(dayStarts, row.bucket_start)]!.start;
    const key = `${start}\u0000${row.type}\u0000${row.function_name}`;
    const sum = sums.get(key);
    if (sum === undefined) sums.set(key, { ...row, bucket_start: start });
    else addSums(sum, row);
  }
  return [...sums.values()];
}
