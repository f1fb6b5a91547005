/**
 * The job runner: agenda over the store's database (backends.ts), with the job definitions of the
 * list. Every instance can queue jobs; each one whose SITEVOICE_JOBS is on also runs the
 * processor, which polls for due jobs and locks each before running it, so one run happens once
 * however many instances poll. A lock lasts the job's lock lifetime: a job whose instance died
 * holding it is run again by another instance once it expired. Repeating jobs are written at
 * start (one row per name, whichever instances start).
 */
import os from "node:os";
import { Agenda, type AgendaBackend, type Job, type JobWithId } from "agenda";
import type { Logger } from "pino";
import type { Settings } from "../settings.ts";
import type { Store } from "../store/store.ts";
import { openJobsBackend } from "./backends.ts";
import { asRunError } from "./fail-reason.ts";
import { GuardedRepository } from "./guarded-repository.ts";
import { MINUTE, type JobDefinition, type JobSchedule } from "./job-definition.ts";

/** What the runner itself needs of the service's parts. */
export interface JobsParts {
  settings: Readonly<Settings>;
  logger: Logger;
  store: Store;
}

export interface JobsOptions {
  /** How often the processor looks for due jobs (default SITEVOICE_JOBS_POLL_MS, 5 s). */
  processEveryMs?: number;
  /** How long `stop` waits for running jobs before closing under them (default 10 s). */
  stopTimeoutMs?: number;
  /** This instance's name, recorded on the jobs it locks (default `host:pid`). */
  instanceName?: string;
}

export interface Jobs {
  /** Whether this instance runs the processor (SITEVOICE_JOBS). */
  readonly processing: boolean;
  /** Queues a run of `name` now, for the first processor to lock it; the job's id. */
  now(name: string, data?: unknown): Promise<string>;
  /** Queues a run of `name` at `when`; the job's id. */
  schedule(when: Date, name: string, data?: unknown): Promise<string>;
  /**
   * Adds a job of `name` repeating for one subject, `data.key` (a site's own nightly job), its
   * first run the schedule's next. A plain insert, so that planning thousands stays linear: the
   * caller removes the subject's old job first (`cancelFor`) and any second one a race made.
   */
  repeatFor(
    name: string,
    key: string,
    data: Record<string, unknown>,
    schedule: JobSchedule,
  ): Promise<void>;
  /** The repeating jobs of `name` made by repeatFor: each one's data and schedule. */
  repeating(name: string): Promise<RepeatingJob[]>;
  /** Removes the jobs of `name` for `data.key` (a subject that is gone); how many. */
  cancelFor(name: string, key: string): Promise<number>;
  /**
   * Stops gracefully: no run starts any more, the jobs this instance locked but had not started
   * are released for the others, and the runs under way are waited for (up to `stopTimeoutMs`);
   * then the backend's own connections close. The store stays open.
   */
  stop(): Promise<void>;
}

/** A repeating job as `repeating` lists it. */
export interface RepeatingJob {
  data: Record<string, unknown>;
  schedule: JobSchedule | undefined;
}

const DEFAULT_LOCK_LIFETIME_MS = 10 * MINUTE;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;

export async function startJobs<Parts extends JobsParts>(
  parts: Parts,
  definitions: readonly JobDefinition<NoInfer<Parts>>[],
  options: JobsOptions = {},
): Promise<Jobs> {
  const { settings, logger, store } = parts;
  const names = new Set(definitions.map((d) => d.name));
  if (names.size !== definitions.length) throw new Error("two job definitions share a name");
  const { backend, connect, close } = openJobsBackend(store.db, settings.database, logger);
  const repository = new GuardedRepository(backend.repository);
  // Connected here, where a failure can be caught: agenda's constructor connects without that.
  try {
    await connect();
  } catch (error) {
    await close();
    throw error;
  }
  const connected: AgendaBackend = {
    name: backend.name,
    repository,
    ownsConnection: false,
    connect: async () => {},
    disconnect: async () => {},
  };
  const agenda = new Agenda({
    backend: connected,
    name: options.instanceName ?? `${os.hostname()}:${process.pid}`,
    processEvery: options.processEveryMs ?? settings.jobsPollMs,
    // A one-off job's row goes once it succeeded; a failed one stays, with its reason.
    removeOnComplete: true,
  });
  // Never the job's data in a log line: it may hold what a module keeps secret.
  agenda.on("fail", (err: Error, job: JobWithId) =>
    logger.warn({ err, job: job.attrs.name, jobId: String(job.attrs._id) }, "job failed"),
  );
  // A lock or a save that failed, a run cancelled past its lock lifetime (the message names it).
  agenda.on("error", (err: Error) => logger.error({ err }, "job processing failed"));

  const running = new Map<string, number>();
  for (const definition of definitions) {
    agenda.define(
      definition.name,
      async (job: Job<unknown>) => {
        running.set(definition.name, (running.get(definition.name) ?? 0) + 1);
        try {
          await definition.run(parts, job.attrs.data);
        } catch (thrown) {
          throw asRunError(thrown);
        } finally {
          running.set(definition.name, (running.get(definition.name) ?? 1) - 1);
        }
      },
      {
        concurrency: definition.concurrency ?? 1,
        lockLifetime: definition.lockLifetimeMs ?? DEFAULT_LOCK_LIFETIME_MS,
      },
    );
  }

  const processing = settings.jobs;
  if (processing) {
    try {
      for (const { name, schedule } of definitions) {
        if (schedule === undefined) continue;
        // skipImmediate: the first run is one interval after this start, not at it.
        if ("everyMs" in schedule) {
          await agenda.every(schedule.everyMs, name, undefined, { skipImmediate: true });
        } else {
          const timezone = schedule.timeZone;
          await agenda.every(schedule.cron, name, undefined, { timezone, skipImmediate: true });
        }
      }
      await agenda.start();
    } catch (error) {
      await agenda.stop(false);
      await close();
      throw error;
    }
  }

  const known = (name: string) => {
    if (!names.has(name)) throw new Error(`no job is defined as "${name}"`);
  };
  const busyNames = () => [...running].filter(([, count]) => count > 0).map(([name]) => name);
  let stopped: Promise<void> | undefined;
  return {
    processing,
    async now(name, data) {
      known(name);
      return String((await agenda.now(name, data)).attrs._id);
    },
    async schedule(when, name, data) {
      known(name);
      return String((await agenda.schedule(when, name, data)).attrs._id);
    },
    async repeatFor(name, key, data, schedule) {
      known(name);
      const job = agenda.create(name, { ...data, key });
      if ("everyMs" in schedule) job.repeatEvery(schedule.everyMs, { skipImmediate: true });
      else job.repeatEvery(schedule.cron, { timezone: schedule.timeZone, skipImmediate: true });
      await job.save();
    },
    async repeating(name) {
      known(name);
      const found = await agenda.queryJobs({ name });
      return found.jobs.map((job) => ({
        data: (job.data ?? {}) as Record<string, unknown>,
        schedule: scheduleOf(job.repeatInterval, job.repeatTimezone),
      }));
    },
    async cancelFor(name, key) {
      known(name);
      return agenda.cancel({ name, data: { key } });
    },
    stop: () =>
      (stopped ??= (async () => {
        repository.stop();
        await agenda.stop(false);
        const timeout = options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
        if (!(await idle(() => !repository.busy && busyNames().length === 0, timeout))) {
          logger.warn(
            { jobs: busyNames() },
            "jobs still running at stop; another instance takes them over when their locks expire",
          );
        }
        await close();
      })()),
  };
}

/** A stored repeat as a JobSchedule (a number of milliseconds, or cron text and its zone). */
function scheduleOf(
  interval: string | number | undefined,
  timeZone: string | null | undefined,
): JobSchedule | undefined {
  if (interval === undefined || interval === null || interval === "") return undefined;
  if (typeof interval === "number" || /^\d+$/.test(interval)) return { everyMs: Number(interval) };
  return { cron: interval, timeZone: timeZone ?? "UTC" };
}

/** Waits until `done()` (checked every 10 ms: a run's next write follows in the same tick). */
async function idle(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
