/**
 * The window and buckets of an analytics summary (the API reference, "Analytics"): periods roll back
 * from now (day 24 h, week 7 d, month 30 d, quarter 90 d, year 365 d) or are `custom`; the window
 * is widened to whole quarter hours, the grain of the rollups. Buckets are the site's local hours,
 * days or weeks (Monday first): an hour is labelled by its local time and offset (a repeated hour
 * when clocks go back is two buckets, a skipped one none), a day or week by its local date.
 */
import { ROLLUP_GRAIN_MS } from "../store/migrations/009-usage-rollups.ts";
import { DAY, HOUR, localDate, localTimestamp, ZoneClock } from "./time-zone.ts";

export const PERIODS = ["day", "week", "month", "quarter", "year", "custom"] as const;
export const BUCKETS = ["hour", "day", "week"] as const;
export type Period = (typeof PERIODS)[number];
export type Bucket = (typeof BUCKETS)[number];

const PERIOD_MS: Record<Exclude<Period, "custom">, number> = {
  day: DAY,
  week: 7 * DAY,
  month: 30 * DAY,
  quarter: 90 * DAY,
  year: 365 * DAY,
};

/** The longest custom window: a year and a day. */
export const MAX_WINDOW_MS = 366 * DAY;

export interface Window {
  since: number;
  until: number;
}

/** The rolling window of `period` ending `now`, or `custom`'s own, in whole quarter hours. */
export function summaryWindow(period: Period, now: number, custom?: Window): Window {
  const raw = period === "custom" ? custom! : { since: now - PERIOD_MS[period], until: now };
  const since = raw.since - mod(raw.since, ROLLUP_GRAIN_MS);
  const until =
    raw.until +
    (mod(raw.until, ROLLUP_GRAIN_MS) === 0 ? 0 : ROLLUP_GRAIN_MS - mod(raw.until, ROLLUP_GRAIN_MS));
  return { since, until };
}

/** A local day wholly inside a window: its first instant and the next day's. */
export interface LocalDay {
  start: number;
  end: number;
}

/**
 * The labels of the window's buckets, in order, with the instant each starts at (its first
 * quarter hour in the window), and the local days wholly inside it. Walks the window a quarter
 * hour at a time, so every bucket with part of the window is listed once; a label is made only
 * where the bucket changes.
 */
export function bucketsOf(window: Window, bucket: Bucket, zone: string) {
  const clock = new ZoneClock(zone);
  const localDayOf = (quarter: number): number => {
    const local = quarter + clock.offset(quarter);
    return local - mod(local, DAY);
  };
  const labels: string[] = [];
  const starts: number[] = [];
  const days: LocalDay[] = [];
  let key = Number.NaN;
  let day = localDayOf(window.since - ROLLUP_GRAIN_MS);
  let dayStart = Number.NaN; // NaN until a day starts inside the window
  for (let quarter = window.since; quarter < window.until; quarter += ROLLUP_GRAIN_MS) {
    const offset = clock.offset(quarter);
    const local = quarter + offset;
    const localDay = local - mod(local, DAY);
    if (localDay !== day) {
      if (!Number.isNaN(dayStart)) days.push({ start: dayStart, end: quarter });
      day = localDay;
      dayStart = quarter;
    }
    // The bucket's own key (an hour's first instant, a day's or week's local date), so a label is
    // formatted once per bucket, not once per quarter hour.
    const bucketKey =
      bucket === "hour"
        ? local - mod(local, HOUR) - offset
        : bucket === "day"
          ? localDay
          : localDay - ((new Date(localDay).getUTCDay() + 6) % 7) * DAY; // Monday first
    if (bucketKey !== key) {
      key = bucketKey;
      labels.push(
        bucket === "hour" ? localTimestamp(local - mod(local, HOUR), offset) : localDate(bucketKey),
      );
      starts.push(quarter);
    }
  }
  if (!Number.isNaN(dayStart) && localDayOf(window.until) !== day) {
    days.push({ start: dayStart, end: window.until });
  }
  return { labels, starts, days };
}

/** The index of the bucket holding `instant`, given the buckets' starts (in order); -1 before. */
export function bucketIndex(starts: readonly number[], instant: number): number {
  let low = 0;
  let high = starts.length - 1;
  if (high < 0 || instant < starts[0]!) return -1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= instant) low = middle;
    else high = middle - 1;
  }
  return low;
}

const mod = (value: number, by: number) => ((value % by) + by) % by;
