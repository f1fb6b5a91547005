/**
 * agenda's JobRepository over knex, for SQLite and MySQL/MariaDB: the store's own knex instance
 * and its `jobs` table (migration 006). Method for method it answers as the official PostgreSQL
 * backend does (same filters, sort, state computation, counts and lock rules; see the conformance
 * suite in test/jobs/), which is the reference: agenda 6 has no published backend for either
 * database. Times are milliseconds; the atomic locks are in knex-job-locks.ts, saving in
 * knex-job-save.ts.
 */
import {
  computeJobState,
  type JobId,
  type JobParameters,
  type JobRepository,
  type JobRepositoryOptions,
  type JobsOverview,
  type JobsQueryOptions,
  type JobsResult,
  type JobWithState,
  type RemoveJobsOptions,
} from "agenda";
import type { Knex } from "knex";
import { containsJson, orderJobs, whereRemoveOptions } from "./job-filters.ts";
import { JOBS_TABLE, ms, rowToJob, stateColumns, type JobRow } from "./job-rows.ts";
import { lockableJob, lockableNow, lockFirst, type KnexJobsClient } from "./knex-job-locks.ts";
import { saveJob } from "./knex-job-save.ts";

/** Ids per statement when rows are changed by id (well below every driver's parameter limit). */
const IDS_PER_STATEMENT = 500;

export class KnexJobRepository implements JobRepository {
  constructor(
    private readonly knex: Knex,
    private readonly client: KnexJobsClient,
    private readonly now: () => number = Date.now,
  ) {}

  private jobs() {
    return this.knex<JobRow>(JOBS_TABLE);
  }

  /** The store migrates at start; a missing table means it did not, and says so here. */
  async connect(): Promise<void> {
    if (!(await this.knex.schema.hasTable(JOBS_TABLE))) {
      throw new Error(`the ${JOBS_TABLE} table is missing: run \`sitevoice migrate\``);
    }
  }

  async queryJobs(options: JobsQueryOptions = {}): Promise<JobsResult> {
    const { name, names, state, id, ids, search, data, includeDisabled = true } = options;
    const { sort, skip = 0, limit = 0 } = options;
    const now = new Date(this.now());
    const query = this.jobs().select("*");
    if (name) query.where("name", name);
    else if (names && names.length > 0) query.whereIn("name", names);
    if (id) query.where("id", id);
    else if (ids && ids.length > 0) query.whereIn("id", ids);
    if (search) {
      // Case-insensitive like PostgreSQL's ILIKE; the text is matched as is, not as a pattern.
      const text = search.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`);
      query.whereRaw("lower(name) like ? escape '!'", [`%${text}%`]);
    }
    if (!includeDisabled) query.where("disabled", false);
    orderJobs(query, sort);
    const jobs: JobWithState[] = (await query)
      .map(rowToJob)
      .filter((job) => data === undefined || containsJson(job.data, data))
      .map((job) => ({ ...job, _id: job._id as JobId, state: computeJobState(job, now) }))
      .filter((job) => {
        if (!state) return true;
        return state === "paused" ? job.disabled === true : job.state === state;
      });
    // Paged after the state filter, which is computed: the total counts every match.
    const end = limit > 0 ? skip + limit : undefined;
    return { jobs: jobs.slice(skip, end), total: jobs.length };
  }

  async getJobsOverview(): Promise<JobsOverview[]> {
    const now = new Date(this.now());
    const overviews = new Map<string, JobsOverview>();
    for (const row of await this.jobs().select("*").orderBy("name")) {
      const job = rowToJob(row);
      let overview = overviews.get(job.name);
      if (overview === undefined) {
        overview = {
          name: job.name,
          total: 0,
          running: 0,
          scheduled: 0,
          queued: 0,
          completed: 0,
          failed: 0,
          repeating: 0,
          paused: 0,
        };
        overviews.set(job.name, overview);
      }
      overview.total += 1;
      overview[computeJobState(job, now)] += 1;
      if (job.disabled === true) overview.paused += 1;
    }
    return [...overviews.values()];
  }

  async getDistinctJobNames(): Promise<string[]> {
    const rows: { name: string }[] = await this.jobs().distinct("name").orderBy("name");
    return rows.map((row) => row.name);
  }

  async getJobById(id: string): Promise<JobParameters | null> {
    const row = await this.jobs().where("id", id).first();
    return row === undefined ? null : rowToJob(row);
  }

  async getQueueSize(): Promise<number> {
    const [row] = await this.jobs().where("next_run_at", "<", this.now()).count({ count: "*" });
    return Number(row?.count ?? 0);
  }

  async removeJobs(options: RemoveJobsOptions): Promise<number> {
    return this.changeSelected(options, (query) => query.delete());
  }

  async disableJobs(options: RemoveJobsOptions): Promise<number> {
    return this.changeSelected(options, (query) =>
      query.update({ disabled: true, updated_at: this.now() }),
    );
  }

  async enableJobs(options: RemoveJobsOptions): Promise<number> {
    return this.changeSelected(options, (query) =>
      query.update({ disabled: false, updated_at: this.now() }),
    );
  }

  async purgeAllJobs(): Promise<number> {
    return this.jobs().delete();
  }

  saveJob<DATA = unknown>(
    job: JobParameters<DATA>,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters<DATA>> {
    return saveJob(this.knex, job, options, this.now());
  }

  async saveJobState(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<void> {
    if (!job._id) throw new Error("Cannot save job state without job ID");
    const where = { id: String(job._id), name: job.name };
    const changed = await this.jobs()
      .where(where)
      .update(stateColumns(job, options?.lastModifiedBy, this.now()));
    if (changed !== 1) {
      throw new Error(
        `job ${job._id} (name: ${job.name}) cannot be updated in the database, maybe it does not exist anymore?`,
      );
    }
  }

  async lockJob(
    job: JobParameters,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    const nextRunAt = ms(job.nextRunAt);
    if (!job._id || nextRunAt === null) return undefined;
    const pick = lockableJob(String(job._id), job.name, nextRunAt);
    const row = await lockFirst(this.knex, this.client, pick, this.mark(this.now(), options));
    return row === undefined ? undefined : rowToJob(row);
  }

  /** Unlocks a job that is not being processed (one with a next run). */
  async unlockJob(job: JobParameters): Promise<void> {
    if (!job._id) return;
    await this.jobs()
      .where("id", String(job._id))
      .whereNotNull("next_run_at")
      .update({ locked_at: null, updated_at: this.now() });
  }

  async unlockJobs(jobIds: (JobId | string)[]): Promise<void> {
    for (let i = 0; i < jobIds.length; i += IDS_PER_STATEMENT) {
      await this.jobs()
        .whereIn("id", jobIds.slice(i, i + IDS_PER_STATEMENT).map(String))
        .update({ locked_at: null, updated_at: this.now() });
    }
  }

  async getNextJobToRun(
    jobName: string,
    nextScanAt: Date,
    lockDeadline: Date,
    now: Date | undefined,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    const pick = lockableNow(jobName, nextScanAt.getTime(), lockDeadline.getTime());
    const lockedAt = now?.getTime() ?? this.now();
    const row = await lockFirst(this.knex, this.client, pick, this.mark(lockedAt, options));
    return row === undefined ? undefined : rowToJob(row);
  }

  private mark(lockedAt: number, options: JobRepositoryOptions | undefined) {
    return {
      locked_at: lockedAt,
      last_modified_by: options?.lastModifiedBy || null,
      updated_at: this.now(),
    };
  }

  /**
   * Applies `change` to the jobs `options` selects and counts them; none when it selects nothing.
   * A `data` filter is checked on the rows first, then they are changed by id.
   */
  private async changeSelected(
    options: RemoveJobsOptions,
    change: (query: Knex.QueryBuilder) => Promise<number>,
  ): Promise<number> {
    const query = this.jobs();
    if (!whereRemoveOptions(query, options)) return 0;
    if (options.data === undefined) return change(query);
    const rows: Pick<JobRow, "id" | "data">[] = await query.select("id", "data");
    const ids = rows
      .filter((row) => containsJson(row.data === null ? null : JSON.parse(row.data), options.data))
      .map((row) => row.id);
    let changed = 0;
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      changed += await change(this.jobs().whereIn("id", ids.slice(i, i + IDS_PER_STATEMENT)));
    }
    return changed;
  }
}
