/**
 * What a job is to the runner: a name, when it repeats, how many runs of it one instance runs at
 * once, how long a run holds its lock, and the work, given the service's parts and the job's data.
 * Modules describe their jobs with these and add them to the one list, job-definitions.ts.
 */

/** When a job repeats: every `everyMs` milliseconds, or at a cron expression in a time zone. */
export type JobSchedule = { everyMs: number } | { cron: string; timeZone: string };

export interface JobDefinition<Parts> {
  /** Unique, prefixed by the module: `widget.sweep`, `webhooks.prune`. */
  name: string;
  /**
   * When it repeats. A repeating job is one row however many instances run (each start updates
   * it); an interval counts from the instance's start. None: it runs only when queued (`now`,
   * `schedule`).
   */
  schedule?: JobSchedule;
  /** Runs at once on one instance (default 1); other instances run theirs. */
  concurrency?: number;
  /**
   * How long a run holds its lock (default 10 minutes): longer than a run takes, since a run
   * still going then is cancelled, and a job whose instance died is taken over only after it.
   */
  lockLifetimeMs?: number;
  /**
   * The work. `data` is what was queued with the job, read back from the database as JSON: check
   * its shape. A throw fails the run (logged with the job's name, and kept on the job).
   */
  run(parts: Parts, data: unknown): Promise<unknown>;
}

/** A repeat every `ms` milliseconds. */
export const every = (ms: number): JobSchedule => ({ everyMs: ms });

/** A repeat at a cron expression (five fields, or six with seconds) read in `timeZone`. */
export const cron = (expression: string, timeZone: string): JobSchedule => ({
  cron: expression,
  timeZone,
});

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
