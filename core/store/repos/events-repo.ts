/**
 * Usage events (what the widget reports, written in batches by the event bus) and service events
 * (written in the transaction of the change that causes them). A usage batch on the embedded
 * SQLite runs prepared better-sqlite3 statements in one synchronous transaction; on PostgreSQL
 * and MySQL it is one multi-row INSERT, and a read-back query only where a client id was taken.
 */
import { deleteOldest } from "../delete-oldest.ts";
import type BetterSqlite3 from "better-sqlite3";
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";
import { addRollups, rollupsOf, sqliteRollupUpsert } from "./usage-rollups.ts";

export interface UsageEventRow {
  id: string;
  site_id: string;
  session_id: string | null;
  type: string;
  function_name: string | null;
  duration_seconds: number | null;
  cost_cents: number | null;
  /** JSON object or null. */
  metadata: string | null;
  client_event_id: string | null;
  created_at: number;
}

export interface ServiceEventRow {
  id: string;
  type: string;
  workspace_id: string;
  site_id: string | null;
  /** JSON. */
  data: string;
  created_at: number;
}

export class EventsRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * Stores a batch of usage events, skipping a row whose (site_id, client_event_id) is already
   * stored (earlier in the batch too), and resolves with the stored row of each, in order: the row
   * itself, or for a repeated client id the first write's. The rows go in one statement, in one
   * transaction with what they add to the usage rollups (on SQLite one synchronous transaction),
   * so a failed write stores none of them and no rollup counts an event the store lacks. Never
   * called inside a transaction: on SQLite it takes the one connection itself.
   */
  async storeUsage(rows: readonly UsageEventRow[]): Promise<UsageEventRow[]> {
    if (rows.length === 0) return [];
    if (this.knex.isTransaction) throw new Error("storeUsage runs outside a transaction");
    if (this.client === "sqlite") return storeUsageOnSqlite(this.knex, rows);
    const client = this.client;
    return this.knex.transaction(async (trx) => {
      const key = ["site_id", "client_event_id"];
      const insert = insertSkippingDuplicate(trx, "usage_events", rows, key, client);
      let unsure: Set<UsageEventRow>;
      if (client === "postgres") {
        // RETURNING names the rows inserted; only the skipped ones need reading back.
        const inserted = new Set(
          ((await insert.returning("id")) as { id: string }[]).map((row) => row.id),
        );
        unsure = new Set(rows.filter((row) => !inserted.has(row.id)));
      } else {
        // MySQL has no RETURNING: every row with a client id is read back.
        await insert;
        unsure = new Set(rows.filter((row) => row.client_event_id !== null));
      }
      const stored = new Map<string, UsageEventRow>();
      if (unsure.size > 0) {
        // The rows it looks for have committed (the INSERT waited for any conflicting one).
        const found = await trx<UsageEventRow>("usage_events").whereIn(
          ["site_id", "client_event_id"],
          [...unsure].map((row) => [row.site_id, row.client_event_id as string]),
        );
        for (const row of found) stored.set(clientKey(row), row);
      }
      const answers = rows.map((row) => {
        if (!unsure.has(row)) return row;
        const first = stored.get(clientKey(row));
        if (first === undefined)
          throw new Error(`usage event ${row.id} was neither stored nor found`);
        return first;
      });
      // Only what this batch stored is rolled up: a repeated client id counts once.
      await addRollups(trx, client, rollupsOf(rows.filter((row, i) => answers[i]!.id === row.id)));
      return answers;
    });
  }

  /** How many usage events of each type a session has stored. */
  async countSessionUsage(sessionId: string): Promise<Record<string, number>> {
    const rows = await this.knex("usage_events")
      .where({ session_id: sessionId })
      .groupBy("type")
      .select("type")
      .count<{ type: string; n: number | string }[]>({ n: "*" });
    return Object.fromEntries(rows.map((row) => [row.type, Number(row.n)]));
  }

  async countUsage(siteId: string): Promise<number> {
    const row = await this.knex("usage_events")
      .where({ site_id: siteId })
      .count<{ n: number | string }>({ n: "*" })
      .first();
    return Number(row?.n ?? 0);
  }

  async listUsage(siteId: string, limit = 1000): Promise<UsageEventRow[]> {
    return this.knex<UsageEventRow>("usage_events")
      .where({ site_id: siteId })
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .limit(limit);
  }

  /**
   * A site's usage events newest first (created_at, then id, both descending), from `since`
   * (inclusive) to `until` (exclusive), optionally of one type, after the keyset `before`.
   * Keyset paging: an event stored meanwhile never shifts a page, so no event present when the
   * paging began is skipped or repeated.
   */
  async pageUsage(
    siteId: string,
    query: {
      since: number;
      until: number;
      type?: string;
      before?: { created_at: number; id: string };
      limit: number;
    },
  ): Promise<UsageEventRow[]> {
    const rows = this.knex<UsageEventRow>("usage_events")
      .where("site_id", siteId)
      .where("created_at", ">=", query.since)
      .where("created_at", "<", query.until);
    if (query.type !== undefined) rows.where("type", query.type);
    const before = query.before;
    if (before !== undefined) {
      rows.where((q) =>
        q
          .where("created_at", "<", before.created_at)
          .orWhere((same) =>
            same.where("created_at", before.created_at).where("id", "<", before.id),
          ),
      );
    }
    return rows
      .orderBy([
        { column: "created_at", order: "desc" },
        { column: "id", order: "desc" },
      ])
      .limit(query.limit);
  }

  /** Deletes up to `limit` usage events created before `before`, oldest first; how many. */
  async deleteUsageBefore(before: number, limit: number): Promise<number> {
    return deleteOldest(this.knex, "usage_events", before, limit);
  }

  async insertService(rows: ServiceEventRow[]): Promise<void> {
    if (rows.length > 0) await this.knex("service_events").insert(rows);
  }

  async serviceEvent(id: string): Promise<ServiceEventRow | undefined> {
    const row = await this.knex<ServiceEventRow>("service_events").where({ id }).first();
    return row === undefined ? undefined : { ...row, created_at: Number(row.created_at) };
  }

  /** Service events of the given types (those with sealed fields, to re-seal them). */
  async serviceOfTypes(types: readonly string[]): Promise<ServiceEventRow[]> {
    if (types.length === 0) return [];
    return this.knex<ServiceEventRow>("service_events").whereIn("type", types);
  }

  async resealService(id: string, data: string): Promise<void> {
    await this.knex("service_events").where({ id }).update({ data });
  }

  async listService(workspaceId: string, limit = 1000): Promise<ServiceEventRow[]> {
    return this.knex<ServiceEventRow>("service_events")
      .where({ workspace_id: workspaceId })
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .limit(limit);
  }
}

const clientKey = (row: UsageEventRow) => `${row.site_id}\u0000${row.client_event_id}`;

const COLUMNS = [
  "id",
  "site_id",
  "session_id",
  "type",
  "function_name",
  "duration_seconds",
  "cost_cents",
  "metadata",
  "client_event_id",
  "created_at",
] as const satisfies readonly (keyof UsageEventRow)[];

type WriteBatch = (rows: readonly UsageEventRow[]) => UsageEventRow[];

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
    `insert into usage_events (${COLUMNS.join(", ")})` +
      ` values (${COLUMNS.map((column) => `@${column}`).join(", ")})` +
      " on conflict (site_id, client_event_id) do nothing",
  );
  const first = conn.prepare<[string, string], UsageEventRow>(
    "select * from usage_events where site_id = ? and client_event_id = ?",
  );
  const rollUp = sqliteRollupUpsert(conn);
  const write = conn.transaction((rows: readonly UsageEventRow[]) => {
    const inserted: UsageEventRow[] = [];
    const answers = rows.map((row) => {
      if (insert.run(row).changes === 1) {
        inserted.push(row);
        return row;
      }
      // Skipped, so its client id is taken (perhaps earlier in this batch): answer that row.
      const stored = first.get(row.site_id, row.client_event_id as string);
      if (stored === undefined)
        throw new Error(`usage event ${row.id} was neither stored nor found`);
      return stored;
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
async function storeUsageOnSqlite(
  knex: Knex,
  rows: readonly UsageEventRow[],
): Promise<UsageEventRow[]> {
  const conn = (await knex.client.acquireConnection()) as BetterSqlite3.Database;
  try {
    return writerOf(conn)(rows);
  } finally {
    await knex.client.releaseConnection(conn);
  }
}
