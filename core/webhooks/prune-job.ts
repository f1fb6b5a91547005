/**
 * Hourly housekeeping of the webhook outbox: pending deliveries past their 24 hours (those of an
 * endpoint that stayed disabled; an enabled endpoint's are abandoned as they come up) are
 * abandoned, and finished deliveries leave the log, with their attempts, after 30 days.
 */
import { cron, MINUTE, type JobDefinition } from "../jobs/job-definition.ts";
import type { Store } from "../store/store.ts";
import { RETRY_WINDOW_MS } from "./retry-schedule.ts";

/** How long a finished delivery stays in the log. */
export const DELIVERY_LOG_KEPT_MS = 30 * 24 * 3_600_000;

export async function pruneDeliveries(
  store: Store,
  now: number,
): Promise<{ abandoned: number; deleted: number }> {
  const deliveries = store.webhookDeliveries;
  const abandoned = await deliveries.abandonOlderThan(now - RETRY_WINDOW_MS, now);
  const deleted = await deliveries.deleteFinishedBefore(now - DELIVERY_LOG_KEPT_MS);
  return { abandoned, deleted };
}

export const webhookPruneJob: JobDefinition<{ store: Store }> = {
  name: "webhooks.prune",
  schedule: cron("17 * * * *", "UTC"),
  concurrency: 1,
  lockLifetimeMs: 10 * MINUTE,
  run: (parts) => pruneDeliveries(parts.store, Date.now()),
};
