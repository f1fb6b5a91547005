/**
 * Usage events (what the widget reports, written in batches by the event bus) and service events
 * (written in the transaction of the change that causes them). A usage batch on the embedded
 * SQLite runs prepared better-sqlite3 statements in one synchronous transaction; on PostgreSQL
 * and MySQL it is one multi-row INSERT, and a read-back query only where a client id was taken.
 */
import { newestFirst } from "../newest-first.ts";
import { deleteOldest } from "../delete-oldest.ts";
import { forgetDaysAround } from "./day-rollups.ts";
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";
import { addRollups, costRollupOf, rollupsOf } from "./usage-rollups.ts";
import type { StoredUsage, UsageEventRow } from "./usage-event-row.ts";
import { storeUsageOnSqlite } from "./usage-sqlite-batch.ts";
import { streamHead, takeStreamOrder } from "./usage-stream-heads.ts";
import { isDeadlock } from "../store-errors.ts";

/** How many times a usage batch is tried when a deadlock aborts it. */
const DEADLOCK_ATTEMPTS = 3;

export type { StoredUsage, UsageEventRow } from "./usage-event-row.ts";

export interface ServiceEventRow {
  id: string;
  type: string;
  workspace_id: string;
  site_id: string | null;
  /** JSON. */
  data: string;
  created_at: number;
}

/** What `addSessionCost` did with a cost, or why it did nothing. */
export type SessionCostOutcome = "added" | "already_costed" | "not_found" | "not_session_end";

export class EventsRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * Stores a batch of usage events, skipping a row whose (site_id, client_event_id) is already
   * stored (earlier in the batch too), and resolves with the stored row of each, in order: the row
   * itself (its id raised above its site's last where needed: usage-stream-heads.ts), or for a
   * repeated client id the first write's (`repeated`). The rows go in one statement, in one
   * transaction with what they add to the usage rollups (on SQLite one synchronous transaction),
   * so a failed write stores none of them and no rollup counts an event the store lacks. Never
   * called inside a transaction: on SQLite it takes the one connection itself.
   */
  async storeUsage(rows: readonly UsageEventRow[]): Promise<StoredUsage[]> {
    if (rows.length === 0) return [];
    if (this.knex.isTransaction) throw new Error("storeUsage runs outside a transaction");
    if (this.client === "sqlite") return storeUsageOnSqlite(this.knex, rows);
    // A deadlock chose this batch to abort (nothing of it is stored): it is tried again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.storeUsageOnce(rows);
      } catch (error) {
        if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(error)) throw error;
      }
    }
  }

  private storeUsageOnce(given: readonly UsageEventRow[]): Promise<StoredUsage[]> {
    const client = this.client;
    return this.knex.transaction(async (trx) => {
      const rows = await takeStreamOrder(trx, client, given);
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
      const answers = rows.map((row): StoredUsage => {
        if (!unsure.has(row)) return { row, repeated: false };
        const first = stored.get(clientKey(row));
        if (first === undefined)
          throw new Error(`usage event ${row.id} was neither stored nor found`);
        return { row: first, repeated: first.id !== row.id };
      });
      // Only what this batch stored is rolled up: a repeated client id counts once.
      await addRollups(trx, client, rollupsOf(rows.filter((_, i) => !answers[i]!.repeated)));
      return answers;
    });
  }

  /** The id of the site's last usage event in commit order ("" before its first). */
  streamHead(siteId: string): Promise<string> {
    return streamHead(this.knex, siteId);
  }

  /**
   * Gives the stored `session_end` event `eventId`, whose cost is still unknown, the cost
   * `costCents`, and adds it to the event's rollup (its cost, and one more costed event; the event
   * and its seconds are counted already), in one transaction. The UPDATE changes the row only
   * while its cost is NULL, so of two calls racing for one event exactly one changes it (the other
   * waits for its row lock, then finds a cost) and only that one touches the rollup.
   */
  async addSessionCost(eventId: string, costCents: number): Promise<SessionCostOutcome> {
    const client = this.client;
    return this.knex.transaction(async (trx) => {
      const changed = await trx("usage_events")
        .where({ id: eventId, type: "session_end" })
        .whereNull("cost_cents")
        .update({ cost_cents: costCents });
      const row = await trx<UsageEventRow>("usage_events").where({ id: eventId }).first();
      if (row === undefined) return "not_found";
      if (changed === 0) return row.type === "session_end" ? "already_costed" : "not_session_end";
      await addRollups(trx, client, [costRollupOf(row, costCents)]);
      // A closed day kept for summaries holds this event without its cost: written again.
      await forgetDaysAround(trx, row.site_id, Number(row.created_at));
      return "added";
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

  /** The session's `session_end` usage event, if stored. */
  async sessionEndOf(sessionId: string): Promise<UsageEventRow | undefined> {
    return this.knex<UsageEventRow>("usage_events")
      .where({ session_id: sessionId, type: "session_end" })
      .first();
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
    return newestFirst(rows, query.before).limit(query.limit);
  }

  /**
   * A site's usage events whose id sorts after `afterId`, in id order (ids are time-ordered):
   * what a stream replays after the last event its client saw.
   */
  async usageAfter(siteId: string, afterId: string, limit: number): Promise<UsageEventRow[]> {
    return this.knex<UsageEventRow>("usage_events")
      .where("site_id", siteId)
      .where("id", ">", afterId)
      .orderBy("id")
      .limit(limit);
  }

  /** The usage events of `siteId` among `ids`, in id order; an id of another site is not read. */
  async usageByIds(siteId: string, ids: readonly string[]): Promise<UsageEventRow[]> {
    if (ids.length === 0) return [];
    return this.knex<UsageEventRow>("usage_events")
      .where("site_id", siteId)
      .whereIn("id", ids)
      .orderBy("id");
  }

  /** Deletes up to `limit` usage events created before `before`, oldest first; how many. */
  async deleteUsageBefore(before: number, limit: number): Promise<number> {
    return deleteOldest(this.knex, "usage_events", before, limit);
  }

  /** Deletes up to `limit` service events created before `before`, oldest first; how many. */
  async deleteServiceBefore(before: number, limit: number): Promise<number> {
    return deleteOldest(this.knex, "service_events", before, limit);
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
