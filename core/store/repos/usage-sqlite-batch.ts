/**
 * `storeUsage` on the embedded SQLite: a batch of usage events and what they add to the rollups in
 * one synchronous better-sqlite3 transaction of prepared statements, made once per connection.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Knex } from "knex";
import { USAGE_COLUMNS, type StoredUsage, type UsageEventRow } from "./usage-event-row.ts";
import { rollupsOf, sqliteRollupUpsert } from "./usage-rollups.ts";
import { sqliteStreamOrder } from "./usage-stream-heads.ts";

type WriteBatch = (rows: readonly UsageEventRow[]) => StoredUsage[];

/**
 * The batch writer of each connection, made once: its statements, and its better-sqlite3
 * transaction function, whose making costs more than the batch's inserts (made per batch, it
 * cut the event benchmark by a third).
 */
const writers = new WeakMap<BetterSqlite3.Database, WriteBatch>();

function writerOf(conn: BetterSqlite3.Database): WriteBatch {
  const known = writers.get(conn);
  if (known !== undefined) return known;
  // Skips only a taken (site_id, client_event_id), as insertSkippingDuplicate does; a NULL
  // client id is never taken, and any other failure (a taken id) fails the batch.
  const insert = conn.prepare<UsageEventRow>(
    `insert into usage_events (${USAGE_COLUMNS.join(", ")})` +
      ` values (${USAGE_COLUMNS.map((column) => `@${column}`).join(", ")})` +
      " on conflict (site_id, client_event_id) do nothing",
  );
  const first = conn.prepare<[string, string], UsageEventRow>(
    "select * from usage_events where site_id = ? and client_event_id = ?",
  );
  const rollUp = sqliteRollupUpsert(conn);
  const streamOrder = sqliteStreamOrder(conn);
  const write = conn.transaction((given: readonly UsageEventRow[]) => {
    const rows = streamOrder(given);
    const inserted: UsageEventRow[] = [];
    const answers = rows.map((row): StoredUsage => {
      if (insert.run(row).changes === 1) {
        inserted.push(row);
        return { row, repeated: false };
      }
      // Skipped, so its client id is taken (perhaps earlier in this batch): answer that row.
      const stored = first.get(row.site_id, row.client_event_id as string);
      if (stored === undefined)
        throw new Error(`usage event ${row.id} was neither stored nor found`);
      return { row: stored, repeated: true };
    });
    for (const rollup of rollupsOf(inserted)) rollUp(rollup);
    return answers;
  });
  writers.set(conn, write);
  return write;
}

/**
 * `storeUsage` on SQLite: `rows` in one transaction, whole or not at all.
 *
 * The connection is knex's own, taken from its pool, not a second handle on the file: the SQLite
 * pool has exactly one connection, and a knex transaction holds it from BEGIN to COMMIT, so
 * taking it waits for any transaction in flight, and nothing else runs on it until it is given
 * back. The better-sqlite3 transaction is synchronous, so it cannot interleave with anything on
 * this process. A second handle would instead contend for SQLite's write lock with knex's
 * connection in the same process: its busy wait would block the event loop, and so the very
 * transaction it waits for. It could not share a `:memory:` database either.
 */
export async function storeUsageOnSqlite(
  knex: Knex,
  rows: readonly UsageEventRow[],
): Promise<StoredUsage[]> {
  const conn = (await knex.client.acquireConnection()) as BetterSqlite3.Database;
  try {
    return writerOf(conn)(rows);
  } finally {
    await knex.client.releaseConnection(conn);
  }
}
