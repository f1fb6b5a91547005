/**
 * The crawls' jobs (added to core/jobs/job-definitions.ts): running one crawl, giving crawls that
 * have none their job, a site's nightly crawl, and planning the nightly jobs (crawl-service.ts,
 * crawl-nightly.ts say how they fit).
 */
import type { ServiceParts } from "../compose.ts";
import { every, HOUR, MINUTE, SECOND, type JobDefinition } from "../jobs/job-definition.ts";
import { CRAWL_LEASE_MS, CRAWL_RUN_JOB } from "./crawl-service.ts";
import { NIGHTLY_CRAWL_JOB } from "./crawl-nightly.ts";

export const CRAWL_DISPATCH_JOB = "crawls.dispatch";
export const CRAWL_PLAN_JOB = "crawls.plan";

/** A string field of a job's data, which is read back from the database as JSON. */
function field(data: unknown, name: string): string {
  const value = (data as Record<string, unknown> | null)?.[name];
  if (typeof value !== "string") throw new Error(`the job's data has no ${name}`);
  return value;
}

/** One crawl; two at a time per instance, the lock as long as the crawl's lease. */
export const crawlRunJob: JobDefinition<ServiceParts> = {
  name: CRAWL_RUN_JOB,
  concurrency: 2,
  lockLifetimeMs: CRAWL_LEASE_MS,
  run: (parts, data) => parts.crawls.run(field(data, "crawl_id")),
};

/** Every 15 s: a job for each crawl queued without one, or left by an instance that died. */
export const crawlDispatchJob: JobDefinition<ServiceParts> = {
  name: CRAWL_DISPATCH_JOB,
  schedule: every(15 * SECOND),
  lockLifetimeMs: 5 * MINUTE,
  run: (parts) => parts.crawls.dispatch(),
};

/** A site's nightly crawl (one repeating job a site, made by the planning job). */
export const nightlyCrawlJob: JobDefinition<ServiceParts> = {
  name: NIGHTLY_CRAWL_JOB,
  run: (parts, data) => parts.crawls.nightly(field(data, "site_id")),
};

/** Hourly (and at each start): the nightly jobs in line with the sites. */
export const crawlPlanJob: JobDefinition<ServiceParts> = {
  name: CRAWL_PLAN_JOB,
  schedule: every(HOUR),
  run: (parts) => parts.crawls.planNightly(),
};
