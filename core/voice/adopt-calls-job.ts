/**
 * `voice.calls-adopt`, every 30 seconds on one instance: joins the calls still on whose
 * controlling instance stopped renewing its lease (it died), so their limits and usage keep
 * being watched. A call another instance holds is left alone (the lease in the store).
 */
import { every, SECOND, type JobDefinition } from "../jobs/job-definition.ts";
import type { CallControlService } from "./call-control-service.ts";

export const adoptCallsJob: JobDefinition<{ callControl: CallControlService }> = {
  name: "voice.calls-adopt",
  schedule: every(30 * SECOND),
  concurrency: 1,
  lockLifetimeMs: 5 * 60 * SECOND,
  run: (parts) => parts.callControl.adoptOrphans(),
};
