/**
 * The daily retention job (the API reference's retention table), `analytics.retention` at 03:41 UTC on one
 * instance: raw usage events and widget sessions (the session metadata: page URL, fingerprint,
 * the sealed signing secret) and service events (the leads and fingerprints webhooks delivered)
 * older than 13 calendar months are deleted, a bounded batch at a time, oldest first. The rollups stay: summaries of any age keep their counts. Hashed IPs (kept an
 * hour) and transcripts (the site's retention days) are the widget sweep's (core/widget/
 * sweeper.ts), every minute, in batches too. It also finishes removing the usage data of sites
 * deleted while an instance crashed (core/sites/site-usage-purge.ts). Running it twice removes
 * nothing more; what it removed is logged.
 */
import type { Logger } from "pino";
import { cron, MINUTE, type JobDefinition } from "../jobs/job-definition.ts";
import { purgeDeletedSites } from "../sites/site-usage-purge.ts";
import { inBatches } from "../store/in-batches.ts";
import type { Store } from "../store/store.ts";

export const RETENTION_MONTHS = 13;
const BATCH = 5_000;

/** The instant `months` calendar months before `now` (UTC; the 31st clamps to the month's end). */
export function monthsBefore(now: number, months: number): number {
  const date = new Date(now);
  const target = new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - months, 1, 0, 0, 0, 0),
  );
  const lastDay = new Date(
    Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
  ).getUTCDate();
  return Date.UTC(
    target.getUTCFullYear(),
    target.getUTCMonth(),
    Math.min(date.getUTCDate(), lastDay),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    date.getUTCMilliseconds(),
  );
}

export interface RetentionParts {
  store: Store;
  logger: Logger;
}

export async function applyRetention(
  parts: RetentionParts,
  now: number,
  batch = BATCH,
): Promise<{
  usage_events: number;
  sessions: number;
  service_events: number;
  deleted_sites: number;
}> {
  const before = monthsBefore(now, RETENTION_MONTHS);
  const removed = {
    usage_events: await inBatches(
      (limit) => parts.store.events.deleteUsageBefore(before, limit),
      batch,
    ),
    sessions: await inBatches(
      (limit) => parts.store.sessions.deleteCreatedBefore(before, limit),
      batch,
    ),
    // What webhooks delivered (leads, fingerprints), long after its deliveries left the log.
    service_events: await inBatches(
      (limit) => parts.store.events.deleteServiceBefore(before, limit),
      batch,
    ),
    // Deleted sites whose usage data a crash left behind (their deletion removes it at once).
    deleted_sites: (await purgeDeletedSites(parts.store, batch)).sites,
  };
  parts.logger.info(
    { ...removed, before: new Date(before).toISOString() },
    "retention applied: raw usage events, sessions and service events past 13 months deleted",
  );
  return removed;
}

export const retentionJob: JobDefinition<RetentionParts> = {
  name: "analytics.retention",
  schedule: cron("41 3 * * *", "UTC"),
  concurrency: 1,
  lockLifetimeMs: 30 * MINUTE,
  run: (parts) => applyRetention(parts, Date.now()),
};
