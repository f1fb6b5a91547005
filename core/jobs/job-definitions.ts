/**
 * The service's jobs: the one list the runner is started with. Each module with work to run on a
 * schedule or later (the widget's sweep; webhook deliveries and their pruning, crawls, the
 * accounts' expired links) describes it next to its code as a JobDefinition and adds one line
 * here. A definition's `run` takes what it needs of the service's parts, so the runner knows none
 * of them.
 */
import { accountsPruneJob } from "../accounts/accounts-prune-job.ts";
import { dayRollupJob } from "../analytics/day-rollup-job.ts";
import { retentionJob } from "../analytics/retention-job.ts";
import type { ServiceParts } from "../compose.ts";
import {
  crawlDispatchJob,
  crawlPlanJob,
  crawlRunJob,
  nightlyCrawlJob,
} from "../intelligence/crawl-jobs.ts";
import { adoptCallsJob } from "../voice/adopt-calls-job.ts";
import { sessionCostsJob } from "../voice/session-costs-job.ts";
import { userDataRunJob, userDataSweepJob } from "../user-data/user-data-jobs.ts";
import { webhookPruneJob } from "../webhooks/prune-job.ts";
import { widgetSweepJob } from "../widget/sweeper.ts";
import type { JobDefinition } from "./job-definition.ts";

export const jobDefinitions: readonly JobDefinition<ServiceParts>[] = [
  widgetSweepJob,
  webhookPruneJob,
  crawlRunJob,
  crawlDispatchJob,
  nightlyCrawlJob,
  crawlPlanJob,
  retentionJob,
  dayRollupJob,
  adoptCallsJob,
  sessionCostsJob,
  userDataRunJob,
  userDataSweepJob,
  accountsPruneJob,
];
