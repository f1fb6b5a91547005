/**
 * The jobs of visitor data requests (added to core/jobs/job-definitions.ts): running one request
 * as soon as it is made, and the sweep every minute (retries, requests left by an instance that
 * died, deadline alerts, expired export documents).
 */
import { every, MINUTE, type JobDefinition } from "../jobs/job-definition.ts";
import { RUN_LEASE_MS, USER_DATA_RUN_JOB, type UserDataService } from "./user-data-service.ts";

type Parts = { userData: UserDataService };

export const userDataRunJob: JobDefinition<Parts> = {
  name: USER_DATA_RUN_JOB,
  concurrency: 2,
  lockLifetimeMs: RUN_LEASE_MS,
  run: async (parts, data) => {
    const id = (data as { request_id?: unknown } | null)?.request_id;
    if (typeof id !== "string") throw new Error("the job's data has no request_id");
    await parts.userData.run(id);
  },
};

export const userDataSweepJob: JobDefinition<Parts> = {
  name: "user-data.sweep",
  schedule: every(MINUTE),
  lockLifetimeMs: 30 * MINUTE,
  run: (parts) => parts.userData.sweep(),
};
