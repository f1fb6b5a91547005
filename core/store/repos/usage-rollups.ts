/**
 * The rollups of stored usage events (migration 009): the rows a batch of newly stored events
 * adds to, and the upsert that adds them, written in the transaction that stores the events so a
 * summary never counts an event the store does not hold, nor misses one it does.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Knex } from "knex";
import { ROLLUP_GRAIN_MS } from "../migrations/009-usage-rollups.ts";
import type { DatabaseClient } from "../../settings.ts";
import type { UsageEventRow } from "./events-repo.ts";

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

/** What `rows` add to the rollups, one row per (site, quarter hour, type, function). */
export function rollupsOf(rows: readonly UsageEventRow[]): RollupRow[] {
  const sums = new Map<string, RollupRow>();
  for (const row of rows) {
    const createdAt = Number(row.created_at);
    const bucketStart = createdAt - (createdAt % ROLLUP_GRAIN_MS);
    const functionName = row.function_name ?? "";
    const key = `${row.site_id}\u0000${bucketStart}\u0000${row.type}\u0000${functionName}`;
    let sum = sums.get(key);
    if (sum === undefined) {
      sum = {
        site_id: row.site_id,
        bucket_start: bucketStart,
        type: row.type,
        function_name: functionName,
        events: 0,
        duration_seconds: 0,
        cost_cents: 0,
        costed: 0,
      };
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
