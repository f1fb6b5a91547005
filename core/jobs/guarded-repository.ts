/**
 * The repository as the runner hands it to agenda, around the backend's own, for a clean stop:
 *
 * - every call is counted while in flight, so `stop` can wait until agenda's last write is done
 *   (the save that ends a run, the removal after it) before the store closes under it;
 * - once stopping, nothing more is locked: agenda's stop releases the jobs it holds, but a queue
 *   fill already under way goes on locking jobs it then never runs nor releases (they would wait
 *   out their lock lifetime). Such a lock is released here instead, and agenda is told "none";
 * - `unlockJob`, which agenda calls without awaiting it, never rejects: a failure there (the
 *   store closing) would be an unhandled rejection, and the lock expires anyway.
 */
import type {
  JobId,
  JobParameters,
  JobRepository,
  JobRepositoryOptions,
  JobsOverview,
  JobsQueryOptions,
  JobsResult,
  RemoveJobsOptions,
} from "agenda";

export class GuardedRepository implements JobRepository {
  private inFlight = 0;
  private stopping = false;

  constructor(private readonly inner: JobRepository) {}

  /** Whether a call is still in flight. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** From now on nothing more is locked. */
  stop(): void {
    this.stopping = true;
  }

  private async track<T>(call: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    try {
      return await call();
    } finally {
      this.inFlight -= 1;
    }
  }

  /**
   * A job locked while stopping is released (unless it has no next run: a one-off whose run
   * died keeps the lock, to be taken over when it expires, rather than be dropped).
   */
  private async unlessStopping(job: JobParameters | undefined) {
    if (job === undefined || !this.stopping) return job;
    await this.unlockJob(job);
    return undefined;
  }

  connect(): Promise<void> {
    return this.track(() => this.inner.connect());
  }

  queryJobs(options?: JobsQueryOptions): Promise<JobsResult> {
    return this.track(() => this.inner.queryJobs(options));
  }

  getJobsOverview(): Promise<JobsOverview[]> {
    return this.track(() => this.inner.getJobsOverview());
  }

  getDistinctJobNames(): Promise<string[]> {
    return this.track(() => this.inner.getDistinctJobNames());
  }

  getJobById(id: string): Promise<JobParameters | null> {
    return this.track(() => this.inner.getJobById(id));
  }

  getQueueSize(): Promise<number> {
    return this.track(() => this.inner.getQueueSize());
  }

  removeJobs(options: RemoveJobsOptions): Promise<number> {
    return this.track(() => this.inner.removeJobs(options));
  }

  saveJob<DATA = unknown>(
    job: JobParameters<DATA>,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters<DATA>> {
    return this.track(() => this.inner.saveJob(job, options));
  }

  saveJobState(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<void> {
    return this.track(() => this.inner.saveJobState(job, options));
  }

  async lockJob(
    job: JobParameters,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    if (this.stopping) return undefined;
    return this.unlessStopping(await this.track(() => this.inner.lockJob(job, options)));
  }

  async unlockJob(job: JobParameters): Promise<void> {
    await this.track(() => this.inner.unlockJob(job)).catch(() => undefined);
  }

  unlockJobs(jobIds: (JobId | string)[]): Promise<void> {
    return this.track(() => this.inner.unlockJobs(jobIds));
  }

  async getNextJobToRun(
    jobName: string,
    nextScanAt: Date,
    lockDeadline: Date,
    now: Date | undefined,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    if (this.stopping) return undefined;
    const job = await this.track(() =>
      this.inner.getNextJobToRun(jobName, nextScanAt, lockDeadline, now, options),
    );
    return this.unlessStopping(job);
  }

  disableJobs(options: RemoveJobsOptions): Promise<number> {
    return this.track(() => this.inner.disableJobs(options));
  }

  enableJobs(options: RemoveJobsOptions): Promise<number> {
    return this.track(() => this.inner.enableJobs(options));
  }

  purgeAllJobs(): Promise<number> {
    return this.track(() => this.inner.purgeAllJobs());
  }
}
