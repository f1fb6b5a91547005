/**
 * `voice.session-costs`, every 15 seconds on one instance: settles the cost of the controlled
 * sessions that ended over a minute ago (session-costs.ts), so a cost is written 60 to 75
 * seconds after its session ends.
 */
import { every, MINUTE, SECOND, type JobDefinition } from "../jobs/job-definition.ts";
import type { SessionCosts } from "./session-costs.ts";

export const sessionCostsJob: JobDefinition<{ sessionCosts: SessionCosts }> = {
  name: "voice.session-costs",
  schedule: every(15 * SECOND),
  concurrency: 1,
  lockLifetimeMs: 10 * MINUTE,
  run: (parts) => parts.sessionCosts.settleDue(),
};
