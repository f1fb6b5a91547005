import { deleteOldest } from "../delete-oldest.ts";
import type { Knex } from "knex";

export interface SessionRow {
  id: string;
  site_id: string;
  workspace_id: string;
  /** Sealed (secret box); opened only to verify a signature. */
  signing_secret: string;
  user_fingerprint: string;
  ip_hash: string | null;
  page_url: string | null;
  created_at: number;
  last_seen_at: number;
  ended_at: number | null;
  end_reason: string | null;
}

export class SessionsRepo {
  constructor(private readonly knex: Knex) {}

  async insert(row: SessionRow): Promise<void> {
    await this.knex("widget_sessions").insert(row);
  }

  async get(id: string): Promise<SessionRow | undefined> {
    return this.knex<SessionRow>("widget_sessions").where({ id }).first();
  }

  async touch(id: string, at: number): Promise<void> {
    await this.knex("widget_sessions")
      .where({ id })
      .whereNull("ended_at")
      .where("last_seen_at", "<", at)
      .update({ last_seen_at: at });
  }

  /** Every open session, for re-sealing their signing secrets under a new master key. */
  async open(): Promise<SessionRow[]> {
    return this.knex<SessionRow>("widget_sessions").whereNull("ended_at");
  }

  async reseal(id: string, signingSecret: string): Promise<void> {
    await this.knex("widget_sessions").where({ id }).update({ signing_secret: signingSecret });
  }

  /** Ends an open session; false when it was already ended (by another instance, the sweeper). */
  async end(id: string, at: number, reason: string): Promise<boolean> {
    const changed = await this.knex("widget_sessions")
      .where({ id })
      .whereNull("ended_at")
      .update({ ended_at: at, end_reason: reason });
    return changed > 0;
  }

  /** Open sessions idle since before `idleBefore` or started before `startedBefore`. */
  async stale(idleBefore: number, startedBefore: number, limit: number): Promise<SessionRow[]> {
    return this.knex<SessionRow>("widget_sessions")
      .whereNull("ended_at")
      .where((q) =>
        q.where("last_seen_at", "<", idleBefore).orWhere("created_at", "<", startedBefore),
      )
      .limit(limit);
  }

  /** Drops the IP hashes older than `before` (kept one hour at most). */
  /** Deletes up to `limit` sessions created before `before`, oldest first; how many. */
  async deleteCreatedBefore(before: number, limit: number): Promise<number> {
    return deleteOldest(this.knex, "widget_sessions", before, limit);
  }

  /** Clears the IP hash of up to `limit` sessions created before `before`, oldest first; how many. */
  async forgetIps(before: number, limit: number): Promise<number> {
    const ids = await this.knex("widget_sessions")
      .whereNotNull("ip_hash")
      .where("created_at", "<", before)
      .orderBy("created_at")
      .limit(limit)
      .pluck("id");
    if (ids.length === 0) return 0;
    return this.knex("widget_sessions").whereIn("id", ids).update({ ip_hash: null });
  }
}
