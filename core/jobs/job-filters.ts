/**
 * How the knex backend selects jobs the way the official PostgreSQL backend does: the filters of
 * RemoveJobsOptions and JobsQueryOptions as WHERE clauses, the sort as ORDER BY (NULLS LAST
 * spelled so SQLite and MySQL both read it), and what PostgreSQL answers with jsonb operators
 * (`data @> …`, `data->>'key' = …`) in JavaScript over the candidate rows: SQLite and MySQL each
 * have JSON functions, but not the same ones nor with jsonb's containment rules.
 */
import type { JobsSort, RemoveJobsOptions, SortDirection } from "agenda";
import type { Knex } from "knex";
import { ms } from "./job-rows.ts";

/**
 * Narrows `query` to the jobs `options` selects (id or ids; name, names or all but notNames), as
 * the PostgreSQL backend does; false when it selects by nothing at all, `data` included (then
 * nothing is to be touched). The `data` filter itself is left to `containsJson`.
 */
export function whereRemoveOptions(query: Knex.QueryBuilder, options: RemoveJobsOptions): boolean {
  let narrowed = false;
  if (options.id) {
    query.where("id", String(options.id));
    narrowed = true;
  } else if (options.ids && options.ids.length > 0) {
    query.whereIn("id", options.ids.map(String));
    narrowed = true;
  }
  if (options.name) {
    query.where("name", options.name);
    narrowed = true;
  } else if (options.names && options.names.length > 0) {
    query.whereIn("name", options.names);
    narrowed = true;
  } else if (options.notNames && options.notNames.length > 0) {
    query.whereNotIn("name", options.notNames);
    narrowed = true;
  }
  return narrowed || options.data !== undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * PostgreSQL's `value @> pattern` on jsonb: an object contains the keys of the pattern with
 * contained values, an array contains each element of the pattern (in any order), a scalar is
 * equal; an array also contains a scalar it has as an element. The pattern is taken as JSON, as
 * the PostgreSQL backend sends it (a Date becomes its ISO text).
 */
export function containsJson(value: unknown, pattern: unknown): boolean {
  return contains(value, JSON.parse(JSON.stringify(pattern) ?? "null") as unknown);
}

function contains(value: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) {
    return Array.isArray(value) && pattern.every((p) => value.some((v) => contains(v, p)));
  }
  if (isObject(pattern)) {
    return (
      isObject(value) &&
      Object.entries(pattern).every(
        ([key, p]) => Object.hasOwn(value, key) && contains(value[key], p),
      )
    );
  }
  if (Array.isArray(value)) return value.some((v) => v === pattern);
  return value === pattern;
}

/**
 * PostgreSQL's `data->>'key'`: the text of a top-level field (a string as itself, anything else
 * as JSON), or null when the field is missing or null.
 */
export function fieldText(data: unknown, key: string): string | null {
  if (!isObject(data) || !Object.hasOwn(data, key)) return null;
  const value = data[key];
  if (value === null || value === undefined) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The columns a `unique` constraint may name directly (not as `data.path`): an identifier cannot
 * be a bound parameter, so a key is checked against this list before it becomes one, as the
 * PostgreSQL backend does.
 */
const UNIQUE_COLUMNS = new Set([
  "id",
  "name",
  "priority",
  "next_run_at",
  "type",
  "locked_at",
  "last_finished_at",
  "failed_at",
  "fail_count",
  "fail_reason",
  "repeat_timezone",
  "last_run_at",
  "repeat_interval",
  "data",
  "repeat_at",
  "disabled",
  "progress",
  "fork",
  "last_modified_by",
  "debounce_started_at",
  "start_date",
  "end_date",
  "skip_days",
  "created_at",
  "updated_at",
]);

/** A `unique` constraint split: column conditions for SQL, `data.` fields to check on rows. */
export interface UniqueKey {
  columns: [string, unknown][];
  dataFields: [string, string][];
}

export function uniqueKeyOf(unique: Record<string, unknown>): UniqueKey {
  const key: UniqueKey = { columns: [], dataFields: [] };
  for (const [field, value] of Object.entries(unique)) {
    if (field.startsWith("data.")) {
      key.dataFields.push([field.slice("data.".length), String(value)]);
      continue;
    }
    const column = field.replace(/([A-Z])/g, "_$1").toLowerCase();
    if (!UNIQUE_COLUMNS.has(column)) throw new Error(`Invalid unique constraint field: "${field}"`);
    key.columns.push([column, columnValue(value)]);
  }
  return key;
}

/** A value compared with a column: times in milliseconds, JSON columns as JSON text. */
function columnValue(value: unknown): unknown {
  if (value instanceof Date) return ms(value);
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return value;
}

const direction = (dir: SortDirection | undefined) => (dir === "asc" ? "asc" : "desc");

/** `column dir NULLS LAST` in a form SQLite and MySQL both take. */
function nullsLast(query: Knex.QueryBuilder, column: string, dir: SortDirection | undefined) {
  query.orderByRaw(`?? is null, ?? ${direction(dir)}`, [column, column]);
}

/**
 * The ORDER BY of queryJobs: the PostgreSQL backend's, by default the next run and then the last
 * run, latest first; the id last, so pages of equal keys are stable.
 */
export function orderJobs(query: Knex.QueryBuilder, sort: JobsSort | undefined): void {
  const { nextRunAt, lastRunAt, lastFinishedAt, priority, name } = sort ?? {};
  if (nextRunAt !== undefined) nullsLast(query, "next_run_at", nextRunAt);
  if (lastRunAt !== undefined) nullsLast(query, "last_run_at", lastRunAt);
  if (lastFinishedAt !== undefined) nullsLast(query, "last_finished_at", lastFinishedAt);
  if (priority !== undefined) query.orderBy("priority", direction(priority));
  if (name !== undefined) query.orderBy("name", direction(name));
  if ([nextRunAt, lastRunAt, lastFinishedAt, priority, name].every((d) => d === undefined)) {
    nullsLast(query, "next_run_at", "desc");
    nullsLast(query, "last_run_at", "desc");
  }
  query.orderBy("id", "asc");
}

/** The order in which jobs of a name are locked: the earliest due first, then the highest priority. */
export const NEXT_JOB_ORDER = "next_run_at is null, next_run_at asc, priority desc";
