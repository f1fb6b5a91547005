/**
 * The job the takeover case has killed mid-run: its name and lock lifetime, shared by the child
 * process that is killed holding it (hold-job-child.ts) and the instance that takes it over.
 */
export const HOLD_JOB = "test.hold";
export const HOLD_LOCK_LIFETIME_MS = 1_500;
