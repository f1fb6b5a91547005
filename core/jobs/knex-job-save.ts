/**
 * `saveJob` of the knex backend, path for path the official PostgreSQL backend's: a job with an
 * id is updated (or handed back unchanged when it was removed meanwhile); a `single` job (what
 * `every` makes) is one row per name, upserted on its unique `single_name`, keeping a stored next
 * run when the new one is already due; a job with a `unique` constraint updates the job matching
 * it (or, with insertOnly, leaves it), debounced when asked; anything else is a new row.
 * Like PostgreSQL's, the `unique` path looks before it writes: two savers racing on a key that
 * matches nothing yet can both insert (a `single` job cannot: the database refuses the second).
 */
import crypto from "node:crypto";
import type { JobParameters, JobRepositoryOptions } from "agenda";
import type { Knex } from "knex";
import { fieldText, uniqueKeyOf } from "./job-filters.ts";
import {
  definitionColumns,
  JOBS_TABLE,
  ms,
  rowToJob,
  storedFailReason,
  type DefinitionColumns,
  type JobRow,
} from "./job-rows.ts";

export async function saveJob<DATA>(
  knex: Knex,
  job: JobParameters<DATA>,
  options: JobRepositoryOptions | undefined,
  now: number,
): Promise<JobParameters<DATA>> {
  const columns = definitionColumns(job, options?.lastModifiedBy, now);
  if (job._id) return updateById(knex, job, columns);
  if (job.type === "single") return upsertSingle(knex, job, columns, now);
  if (job.unique) {
    const saved = await saveUnique(knex, job, columns, now);
    if (saved !== undefined) return saved;
  }
  return insert(knex, columns, now);
}

/** What is read back is the caller's job with the stored fields (its data type included). */
const asJob = <DATA>(row: JobRow) => rowToJob(row) as JobParameters<DATA>;

async function updateById<DATA>(
  knex: Knex,
  job: JobParameters<DATA>,
  columns: DefinitionColumns,
): Promise<JobParameters<DATA>> {
  const id = String(job._id);
  await knex(JOBS_TABLE)
    .where({ id, name: job.name })
    .update({
      ...columns,
      fail_reason: storedFailReason(job.failReason),
      fail_count: job.failCount ?? null,
      failed_at: ms(job.failedAt),
    });
  const row = await knex<JobRow>(JOBS_TABLE).where({ id, name: job.name }).first();
  return row === undefined ? job : asJob<DATA>(row);
}

async function upsertSingle<DATA>(
  knex: Knex,
  job: JobParameters<DATA>,
  columns: DefinitionColumns,
  now: number,
): Promise<JobParameters<DATA>> {
  const { name: _name, type: _type, single_name: _single, ...changed } = columns;
  // A next run that is already due does not replace one stored (a restart keeps the schedule).
  const keepStored = columns.next_run_at !== null && columns.next_run_at <= now;
  await knex(JOBS_TABLE)
    .insert(newRow(columns, now))
    .onConflict("single_name")
    .merge({
      ...changed,
      next_run_at: keepStored
        ? knex.raw("coalesce(??, ?)", ["next_run_at", columns.next_run_at])
        : columns.next_run_at,
    });
  const row = await knex<JobRow>(JOBS_TABLE).where({ single_name: job.name }).first();
  if (row === undefined) throw new Error(`single job ${job.name} was not saved`);
  return asJob<DATA>(row);
}

/** The unique path; undefined when nothing matches and no debounce asks for a special insert. */
async function saveUnique<DATA>(
  knex: Knex,
  job: JobParameters<DATA>,
  columns: DefinitionColumns,
  now: number,
): Promise<JobParameters<DATA> | undefined> {
  const key = uniqueKeyOf(job.unique ?? {});
  const candidates = await knex<JobRow>(JOBS_TABLE)
    .where("name", job.name)
    .where((q) => {
      for (const [column, value] of key.columns) q.where(column, value as Knex.Value);
    })
    .orderBy("id");
  const matching = candidates.filter((row) => {
    const data = row.data === null ? null : (JSON.parse(row.data) as unknown);
    return key.dataFields.every(([field, text]) => fieldText(data, field) === text);
  });
  const debounce = job.uniqueOpts?.debounce;
  const existing = matching[0];
  if (existing === undefined) {
    if (debounce === undefined) return undefined;
    // Leading: run now (as given); trailing: after the quiet period.
    const nextRunAt = debounce.strategy === "leading" ? columns.next_run_at : now + debounce.delay;
    return insert<DATA>(knex, { ...columns, next_run_at: nextRunAt }, now, now);
  }
  if (job.uniqueOpts?.insertOnly && debounce === undefined) return asJob<DATA>(existing);
  let nextRunAt = columns.next_run_at;
  let debounceStartedAt: number | null = null;
  if (debounce !== undefined) {
    const startedAt = existing.debounce_started_at ?? now;
    if (debounce.strategy === "leading") {
      // Leading: the first save's run stands; only the data changes.
      nextRunAt = existing.next_run_at;
      debounceStartedAt = startedAt;
    } else if (debounce.maxWait !== undefined && now - startedAt >= debounce.maxWait) {
      nextRunAt = now;
    } else {
      nextRunAt = now + debounce.delay;
      debounceStartedAt = startedAt;
    }
  }
  const { name: _name, ...changed } = columns;
  await knex(JOBS_TABLE)
    .whereIn(
      "id",
      matching.map((row) => row.id),
    )
    .update({ ...changed, next_run_at: nextRunAt, debounce_started_at: debounceStartedAt });
  const row = await knex<JobRow>(JOBS_TABLE).where("id", existing.id).first();
  return row === undefined ? job : asJob<DATA>(row);
}

function newRow(columns: DefinitionColumns, now: number, debounceStartedAt?: number): JobRow {
  return {
    ...columns,
    id: crypto.randomUUID(),
    locked_at: null,
    last_finished_at: null,
    failed_at: null,
    fail_count: null,
    fail_reason: null,
    last_run_at: null,
    progress: null,
    debounce_started_at: debounceStartedAt ?? null,
    created_at: now,
  };
}

async function insert<DATA>(
  knex: Knex,
  columns: DefinitionColumns,
  now: number,
  debounceStartedAt?: number,
): Promise<JobParameters<DATA>> {
  const row = newRow(columns, now, debounceStartedAt);
  await knex(JOBS_TABLE).insert(row);
  return asJob<DATA>(row);
}
