/**
 * `analytics.day-rollups`, hourly on one instance: every site's local days of the last year that
 * have ended are kept as day rows (core/store/repos/day-rollups.ts) in the site's time zone, so a
 * summary reads them rather than writing them first. Sites' days end at every hour somewhere; a
 * day already kept costs one read. Running it again writes nothing more; what it wrote is logged.
 */
import type { Logger } from "pino";
import { HOUR, cron, type JobDefinition } from "../jobs/job-definition.ts";
import type { Store } from "../store/store.ts";
import type { AnalyticsService } from "./analytics-service.ts";

export interface DayRollupParts {
  store: Store;
  analytics: AnalyticsService;
  logger: Logger;
}

/** Keeps every site's closed days; how many days it wrote, in all. */
export async function keepAllClosedDays(parts: DayRollupParts): Promise<number> {
  let written = 0;
  for (const site of await parts.store.sites.timeZones()) {
    written += await parts.analytics.keepClosedDays(site.site_id, site.timezone ?? "UTC");
  }
  if (written > 0) parts.logger.info({ days: written }, "day rollups kept for summaries");
  return written;
}

export const dayRollupJob: JobDefinition<DayRollupParts> = {
  name: "analytics.day-rollups",
  schedule: cron("7 * * * *", "UTC"),
  concurrency: 1,
  lockLifetimeMs: HOUR,
  run: (parts) => keepAllClosedDays(parts),
};
