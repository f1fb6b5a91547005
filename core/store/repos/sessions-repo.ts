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
  /** The instructions and tools (JSON) of its latest provider session (migration 016). */
  provider_session?: string | null;
  /** When its `conversation.ended` was recorded. */
  ended_event_at?: number | null;
  /** When the cost of a controlled session was settled. */
  cost_settled_at?: number | null;
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

  /** Marks the session's `conversation.ended` recorded, once: whether this call marked it. */
  async markEndedEvent(id: string, at: number): Promise<boolean> {
    const changed = await this.knex("widget_sessions")
      .where({ id })
      .whereNull("ended_event_at")
      .update({ ended_event_at: at });
    return changed === 1;
  }

  /** Marks a controlled session's cost settled. */
  async settleCost(id: string, at: number): Promise<void> {
    await this.knex("widget_sessions").where({ id }).update({ cost_settled_at: at });
  }

  /**
   * Sessions that ended before `before` with a call an instance controlled and whose cost is not
   * settled: up to `limit`, those that ended first first.
   */
  async costsDue(before: number, limit: number): Promise<SessionRow[]> {
    return this.knex<SessionRow>("widget_sessions")
      .whereNull("cost_settled_at")
      .whereNotNull("ended_at")
      .where("ended_at", "<", before)
      .whereExists((calls) =>
        calls
          .select(this.knex.raw("1"))
          .from("voice_calls")
          .whereRaw("voice_calls.session_id = widget_sessions.id")
          .whereNotNull("voice_calls.controlled_at"),
      )
      .orderBy("ended_at")
      .limit(limit);
  }

  /** Keeps the instructions and tools (JSON) of the session's latest provider session. */
  async keepProviderSession(id: string, session: string): Promise<void> {
    await this.knex("widget_sessions").where({ id }).update({ provider_session: session });
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
