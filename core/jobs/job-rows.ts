/**
 * A job's row in the `jobs` table (migration 006) and agenda's JobParameters, both ways: times as
 * BIGINT milliseconds, data and skip days as JSON text, booleans as 0/1 where the driver says so.
 * The fields and their defaults are those of the official PostgreSQL backend's row mapping, so a
 * job reads back the same from either backend.
 */
import { toJobId, type JobParameters } from "agenda";
import { failReasonText } from "./fail-reason.ts";

export const JOBS_TABLE = "jobs";

export interface JobRow {
  id: string;
  name: string;
  priority: number;
  next_run_at: number | null;
  type: "normal" | "single";
  /** The name of a `single` job (one row per name), else null; unique. */
  single_name: string | null;
  locked_at: number | null;
  last_finished_at: number | null;
  failed_at: number | null;
  fail_count: number | null;
  fail_reason: string | null;
  repeat_timezone: string | null;
  last_run_at: number | null;
  repeat_interval: string | null;
  /** JSON text; null when the job has no data. */
  data: string | null;
  repeat_at: string | null;
  disabled: boolean | number;
  progress: number | null;
  fork: boolean | number;
  last_modified_by: string | null;
  debounce_started_at: number | null;
  start_date: number | null;
  end_date: number | null;
  /** JSON text of the days of the week skipped. */
  skip_days: string | null;
  created_at: number;
  updated_at: number;
}

/** Milliseconds of a time agenda hands over (a Date, or what `new Date` reads); null for none. */
export function ms(value: Date | string | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const time = value instanceof Date ? value.getTime() : new Date(value).getTime();
  return Number.isNaN(time) ? null : time;
}

/** A stored time as a Date (mysql2 hands back a BIGINT beyond 2^53 as a string; none is). */
function dateOf(value: number | string | null): Date | undefined {
  return value === null ? undefined : new Date(Number(value));
}

export function rowToJob(row: JobRow): JobParameters {
  return {
    _id: toJobId(row.id),
    name: row.name,
    priority: row.priority,
    nextRunAt: dateOf(row.next_run_at) ?? null,
    type: row.type,
    lockedAt: dateOf(row.locked_at),
    lastFinishedAt: dateOf(row.last_finished_at),
    failedAt: dateOf(row.failed_at),
    failCount: row.fail_count ?? undefined,
    failReason: row.fail_reason ?? undefined,
    repeatTimezone: row.repeat_timezone ?? undefined,
    lastRunAt: dateOf(row.last_run_at),
    repeatInterval: row.repeat_interval ?? undefined,
    data: row.data === null ? null : (JSON.parse(row.data) as unknown),
    repeatAt: row.repeat_at ?? undefined,
    disabled: Boolean(row.disabled),
    progress: row.progress ?? undefined,
    fork: Boolean(row.fork),
    lastModifiedBy: row.last_modified_by ?? undefined,
    debounceStartedAt: dateOf(row.debounce_started_at),
    startDate: dateOf(row.start_date),
    endDate: dateOf(row.end_date),
    skipDays: row.skip_days === null ? undefined : (JSON.parse(row.skip_days) as number[]),
  };
}

/** The columns a save writes (the job's definition; not its processing state). */
export type DefinitionColumns = Pick<
  JobRow,
  | "name"
  | "priority"
  | "next_run_at"
  | "type"
  | "single_name"
  | "repeat_timezone"
  | "repeat_interval"
  | "data"
  | "repeat_at"
  | "disabled"
  | "fork"
  | "last_modified_by"
  | "start_date"
  | "end_date"
  | "skip_days"
  | "updated_at"
>;

export function definitionColumns(
  job: JobParameters,
  lastModifiedBy: string | undefined,
  now: number,
): DefinitionColumns {
  return {
    name: job.name,
    priority: job.priority,
    next_run_at: ms(job.nextRunAt),
    type: job.type,
    single_name: job.type === "single" ? job.name : null,
    repeat_timezone: job.repeatTimezone || null,
    // A number is milliseconds; agenda reads a numeric string back as such.
    repeat_interval: job.repeatInterval ? String(job.repeatInterval) : null,
    data: jsonOrNull(job.data),
    repeat_at: job.repeatAt || null,
    disabled: job.disabled || false,
    fork: job.fork || false,
    last_modified_by: lastModifiedBy || null,
    start_date: ms(job.startDate),
    end_date: ms(job.endDate),
    skip_days: job.skipDays ? JSON.stringify(job.skipDays) : null,
    updated_at: now,
  };
}

/** The processing state agenda saves around a run (saveJobState). */
export function stateColumns(
  job: JobParameters,
  lastModifiedBy: string | undefined,
  now: number,
): Partial<JobRow> {
  return {
    locked_at: ms(job.lockedAt),
    next_run_at: ms(job.nextRunAt),
    last_run_at: ms(job.lastRunAt),
    progress: job.progress ?? null,
    fail_reason: storedFailReason(job.failReason),
    fail_count: job.failCount ?? null,
    failed_at: ms(job.failedAt),
    last_finished_at: ms(job.lastFinishedAt),
    last_modified_by: lastModifiedBy || null,
    updated_at: now,
  };
}

/**
 * The `fail_reason` column of what agenda hands over as the reason (fail-reason.ts): none for
 * none, else text, whatever it is (agenda passes on a thrown value that is not an Error as is).
 */
export function storedFailReason(reason: unknown): string | null {
  return reason === undefined ? null : failReasonText(reason);
}

/** JSON text of `value`, null for undefined (as `JSON.stringify` hands pg an undefined). */
export function jsonOrNull(value: unknown): string | null {
  return JSON.stringify(value) ?? null;
}
