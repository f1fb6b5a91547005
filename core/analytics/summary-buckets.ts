/**
 * The window and buckets of an analytics summary (DECISIONS.md "Analytics"): periods roll back
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

/**
 * The labels of the window's buckets, in order, and the label of each quarter hour in it. Walks
 * the window a quarter hour at a time, so every bucket with part of the window is listed once.
 */
export function bucketsOf(window: Window, bucket: Bucket, zone: string) {
  const clock = new ZoneClock(zone);
  const labelOf = (quarter: number): string => {
    const offset = clock.offset(quarter);
    const local = quarter + offset;
    if (bucket === "hour") return localTimestamp(local - mod(local, HOUR), offset);
    const day = local - mod(local, DAY);
    if (bucket === "day") return localDate(day);
    const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0
    return localDate(day - weekday * DAY);
  };
  const labels: string[] = [];
  const ofQuarter = new Map<number, string>();
  for (let quarter = window.since; quarter < window.until; quarter += ROLLUP_GRAIN_MS) {
    const label = labelOf(quarter);
    ofQuarter.set(quarter, label);
    if (labels.at(-1) !== label) labels.push(label);
  }
  return { labels, ofQuarter };
}

const mod = (value: number, by: number) => ((value % by) + by) % by;
