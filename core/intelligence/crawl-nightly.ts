/**
 * The nightly crawl: one repeating Agenda job a site (`crawls.nightly`, keyed by the site's id),
 * at a minute of the site's own night between 01:00 and 04:59 in its time zone, the minute drawn
 * from a hash of the site's id so that many sites spread over the night instead of all crawling
 * at once. Planning makes the missing jobs, moves those whose time zone changed and removes those
 * of deleted sites; it runs at start and every hour, on whichever instance takes it, and reads
 * the sites from the store, so sites made anywhere (the API, a CLI sync) get theirs.
 */
import crypto from "node:crypto";
import type { Logger } from "pino";
import { cron, type JobSchedule } from "../jobs/job-definition.ts";
import type { Jobs } from "../jobs/jobs.ts";
import type { Store } from "../store/store.ts";

export const NIGHTLY_CRAWL_JOB = "crawls.nightly";

/** The night: from 01:00, for four hours, local time. */
const NIGHT_START_MINUTE = 60;
const NIGHT_MINUTES = 240;

/** The site's nightly schedule: a daily cron at its minute of the night, in its time zone. */
export function nightlySchedule(siteId: string, timeZone: string | undefined): JobSchedule {
  const hash = crypto.createHash("sha256").update(siteId).digest().readUInt32BE(0);
  const minute = NIGHT_START_MINUTE + (hash % NIGHT_MINUTES);
  return cron(`${minute % 60} ${Math.floor(minute / 60)} * * *`, validZone(timeZone));
}

function validZone(timeZone: string | undefined): string {
  if (timeZone === undefined) return "UTC";
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return timeZone;
  } catch {
    return "UTC";
  }
}

const sameSchedule = (a: JobSchedule | undefined, b: JobSchedule) =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/** Brings the nightly jobs in line with the sites; what it made, moved and removed. */
export async function planNightlyCrawls(
  store: Store,
  jobs: Pick<Jobs, "repeatFor" | "repeating" | "cancelFor">,
  logger: Logger,
): Promise<{ made: number; moved: number; removed: number }> {
  const sites = await store.sites.timeZones();
  const existing = new Map<string, JobSchedule | undefined>();
  const twice = new Set<string>();
  for (const job of await jobs.repeating(NIGHTLY_CRAWL_JOB)) {
    if (typeof job.data.key !== "string") continue;
    if (existing.has(job.data.key)) twice.add(job.data.key);
    existing.set(job.data.key, job.schedule);
  }
  const counts = { made: 0, moved: 0, removed: 0 };
  // Two planners racing (two instances starting at once) can each make a site's job: one stays.
  for (const key of twice) {
    counts.removed += await jobs.cancelFor(NIGHTLY_CRAWL_JOB, key);
    existing.delete(key);
  }
  for (const { site_id: siteId, timezone } of sites) {
    const wanted = nightlySchedule(siteId, timezone);
    const had = existing.has(siteId);
    const schedule = existing.get(siteId);
    existing.delete(siteId);
    if (had && sameSchedule(schedule, wanted)) continue;
    if (had) await jobs.cancelFor(NIGHTLY_CRAWL_JOB, siteId);
    await jobs.repeatFor(NIGHTLY_CRAWL_JOB, siteId, { site_id: siteId }, wanted);
    counts[had ? "moved" : "made"] += 1;
  }
  for (const gone of existing.keys()) {
    counts.removed += await jobs.cancelFor(NIGHTLY_CRAWL_JOB, gone);
  }
  if (counts.made + counts.moved + counts.removed > 0) {
    logger.info(counts, "nightly crawls planned");
  }
  return counts;
}
