/**
 * The rollups of stored usage events (migration 009): the rows a batch of newly stored events
 * adds to, and the upsert that adds them, written in the transaction that stores the events so a
 * summary never counts an event the store does not hold, nor misses one it does.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Knex } from "knex";
import { ROLLUP_GRAIN_MS } from "../migrations/009-usage-rollups.ts";
import type { DatabaseClient } from "../../settings.ts";

export const ROLLUPS_TABLE = "usage_rollups";
const KEY = ["site_id", "bucket_start", "type", "function_name"] as const;
const SUMS = ["events", "duration_seconds", "cost_cents", "costed"] as const;

export interface RollupRow {
  site_id: string;
  bucket_start: number;
  type: string;
  function_name: string;
  events: number;
  duration_seconds: number;
  cost_cents: number;
  costed: number;
}

/** What an event brings to the rollups (a usage event row has these fields). */
export interface RolledEvent {
  site_id: string;
  type: string;
  function_name: string | null;
  duration_seconds: number | null;
  cost_cents: number | null;
  created_at: number;
}

/** The rollup row `row` belongs to, with nothing added yet. */
function emptyRollupOf(row: RolledEvent): RollupRow {
  const createdAt = Number(row.created_at);
  return {
    site_id: row.site_id,
    bucket_start: createdAt - (createdAt % ROLLUP_GRAIN_MS),
    type: row.type,
    function_name: row.function_name ?? "",
    events: 0,
    duration_seconds: 0,
    cost_cents: 0,
    costed: 0,
  };
}

type Sums = Pick<RollupRow, (typeof SUMS)[number]>;

/** Adds `more`'s sums to `sum`'s. */
export function addSums(sum: Sums, more: Sums): void {
  for (const column of SUMS) sum[column] += more[column];
}

/** What `rows` add to the rollups, one row per (site, quarter hour, type, function). */
export function rollupsOf(rows: readonly RolledEvent[]): RollupRow[] {
  const sums = new Map<string, RollupRow>();
  for (const row of rows) {
    const empty = emptyRollupOf(row);
    const key = `${empty.site_id}\u0000${empty.bucket_start}\u0000${empty.type}\u0000${empty.function_name}`;
    let sum = sums.get(key);
    if (sum === undefined) {
      sum = empty;
      sums.set(key, sum);
    }
    sum.events += 1;
    sum.duration_seconds += row.duration_seconds ?? 0;
    if (row.cost_cents !== null) {
      sum.cost_cents += row.cost_cents;
      sum.costed += 1;
    }
  }
  return [...sums.values()];
}

/**
 * What a cost given later to the stored event `row` (which had none) adds to the rollups: the cost
 * and one more costed event; its event and seconds are counted already.
 */
export function costRollupOf(row: RolledEvent, costCents: number): RollupRow {
  return { ...emptyRollupOf(row), cost_cents: costCents, costed: 1 };
}

/** Adds `rollups` to the stored ones (inside the caller's transaction). */
export async function addRollups(
  trx: Knex,
  client: DatabaseClient,
  rollups: readonly RollupRow[],
): Promise<void> {
  if (rollups.length === 0) return;
  const added = (column: string) =>
    client === "mysql"
      ? trx.raw("?? + values(??)", [column, column])
      : trx.raw("?? + excluded.??", [`${ROLLUPS_TABLE}.${column}`, column]);
  await trx(ROLLUPS_TABLE)
    .insert(rollups)
    .onConflict([...KEY])
    .merge(Object.fromEntries(SUMS.map((column) => [column, added(column)])));
}

/** The same upsert as a prepared statement of a better-sqlite3 connection (its sync batches). */
export function sqliteRollupUpsert(conn: BetterSqlite3.Database): (rollup: RollupRow) => void {
  const statement = conn.prepare<RollupRow>(
    `insert into ${ROLLUPS_TABLE} (${[...KEY, ...SUMS].join(", ")})` +
      ` values (${[...KEY, ...SUMS].map((column) => `@${column}`).join(", ")})` +
      ` on conflict (${KEY.join(", ")}) do update set ` +
      SUMS.map((column) => `${column} = ${column} + excluded.${column}`).join(", "),
  );
  return (rollup) => {
    statement.run(rollup);
  };
}

/** The rollups of a site read by summaries (and, for closed days, by the day rollups). */
export class RollupsRepo {
  constructor(private readonly knex: Knex) {}

  /** The rollup rows of the site's quarter hours in [since, until), as stored. */
  async rows(siteId: string, since: number, until: number): Promise<Omit<RollupRow, "site_id">[]> {
    const rows = await this.knex(ROLLUPS_TABLE)
      .where("site_id", siteId)
      .where("bucket_start", ">=", since)
      .where("bucket_start", "<", until)
      .select("bucket_start", "type", "function_name", "events", "duration_seconds")
      .select("cost_cents", "costed");
    return rows.map((row: Record<string, unknown>) => rollupRowOf(row, Number(row.bucket_start)));
  }
}

/** A rollup row as read (drivers answer big integers as strings), starting at `start`. */
export function rollupRowOf(
  row: Record<string, unknown>,
  start: number,
): Omit<RollupRow, "site_id"> {
  return {
    bucket_start: start,
    type: String(row.type),
    function_name: String(row.function_name),
    events: Number(row.events),
    duration_seconds: Number(row.duration_seconds),
    cost_cents: Number(row.cost_cents),
    costed: Number(row.costed),
  };
}

export type UsageGroup = "site_id" | "day" | "type";

/** Usage of a workspace's sites in [since, until) grouped by site, UTC day and/or type. */
export async function workspaceUsage(
  knex: Knex,
  query: {
    workspaceId: string;
    siteIds?: readonly string[];
    since: number;
    until: number;
    groupBy: readonly UsageGroup[];
  },
): Promise<Array<Record<string, unknown>>> {
  // Expressions of ours only (never client text), so they can be written into the SQL.
  const expressions: Record<UsageGroup, string> = {
    site_id: "r.site_id",
    day: `r.bucket_start - (r.bucket_start % ${24 * 60 * 60_000})`,
    type: "r.type",
  };
  const rows = knex(`${ROLLUPS_TABLE} as r`)
    .join("sites as s", "s.site_id", "r.site_id")
    .where("s.workspace_id", query.workspaceId)
    .where("r.bucket_start", ">=", query.since)
    .where("r.bucket_start", "<", query.until);
  if (query.siteIds !== undefined) rows.whereIn("r.site_id", [...query.siteIds]);
  for (const group of query.groupBy) {
    rows
      .select(knex.raw(`${expressions[group]} as ${group}`))
      .groupBy(knex.raw(expressions[group]));
  }
  return rows
    .select(
      knex.raw("sum(case when r.type = 'session_start' then r.events else 0 end) as sessions"),
      knex.raw(
        "sum(case when r.type = 'session_end' then r.duration_seconds else 0 end) as seconds",
      ),
      knex.raw("sum(r.events) as events"),
    )
    .orderBy(query.groupBy.map((group) => ({ column: group })));
}
