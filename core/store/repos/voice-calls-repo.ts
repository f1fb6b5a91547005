/**
 * The provider's calls of widget sessions (migration 015): claimed by the session that reports
 * them, each by one session only.
 */
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";

export interface VoiceCallRow {
  call_id: string;
  session_id: string;
  site_id: string;
  created_at: number;
  ended_at: number | null;
  end_reason: string | null;
  controller: string | null;
  lease_until: number | null;
  /** When an instance first joined it (migration 016); null while none has. */
  controlled_at?: number | null;
}

export class VoiceCallsRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * Stores `row` unless its call id is stored already, and answers the stored row: `row` itself,
   * or the first claim's (which may be another session's).
   */
  async claim(row: VoiceCallRow): Promise<VoiceCallRow> {
    const key = ["call_id"];
    await insertSkippingDuplicate(this.knex, "voice_calls", row, key, this.client, "call_id");
    const stored = await this.get(row.call_id);
    if (stored === undefined)
      throw new Error(`voice call ${row.call_id} was neither stored nor found`);
    return stored;
  }

  async get(callId: string): Promise<VoiceCallRow | undefined> {
    return this.knex<VoiceCallRow>("voice_calls").where({ call_id: callId }).first();
  }

  /**
   * Takes or renews the control lease of a call still on, for `instance` until `until`: only when
   * no instance holds it, this one does, or the holder's lease ran out before `now`. Whether it
   * is this instance's now.
   */
  async lease(callId: string, instance: string, now: number, until: number): Promise<boolean> {
    const changed = await this.knex("voice_calls")
      .where({ call_id: callId })
      .whereNull("ended_at")
      .where((free) =>
        free
          .whereNull("controller")
          .orWhere("controller", instance)
          .orWhere("lease_until", "<", now),
      )
      .update({ controller: instance, lease_until: until });
    return changed === 1;
  }

  /** Records that an instance joined the call (the first time it did). */
  async markControlled(callId: string, at: number): Promise<void> {
    await this.knex("voice_calls")
      .where({ call_id: callId })
      .whereNull("controlled_at")
      .update({ controlled_at: at });
  }

  /** Gives the lease back, if `instance` holds it. */
  async release(callId: string, instance: string): Promise<void> {
    await this.knex("voice_calls")
      .where({ call_id: callId, controller: instance })
      .update({ controller: null, lease_until: null });
  }

  /** Marks the call over (once), with why; its lease goes. */
  async end(callId: string, at: number, reason: string): Promise<void> {
    await this.knex("voice_calls")
      .where({ call_id: callId })
      .whereNull("ended_at")
      .update({ ended_at: at, end_reason: reason, controller: null, lease_until: null });
  }

  /**
   * Calls that were controlled, are not over, and whose lease ran out before `now` (the instance
   * holding them stopped), made after `since`: up to `limit`, oldest first.
   */
  async orphaned(now: number, since: number, limit: number): Promise<VoiceCallRow[]> {
    return this.knex<VoiceCallRow>("voice_calls")
      .whereNull("ended_at")
      .whereNotNull("controlled_at")
      .where("created_at", ">", since)
      .where((lapsed) => lapsed.whereNull("lease_until").orWhere("lease_until", "<", now))
      .orderBy("created_at")
      .limit(limit);
  }

  /** Whether an instance has controlled a call of the session. */
  async controlledOf(sessionId: string): Promise<boolean> {
    const row = await this.knex("voice_calls")
      .where({ session_id: sessionId })
      .whereNotNull("controlled_at")
      .first("call_id");
    return row !== undefined;
  }

  /** The session's calls, the latest first. */
  async ofSession(sessionId: string): Promise<VoiceCallRow[]> {
    return this.knex<VoiceCallRow>("voice_calls")
      .where({ session_id: sessionId })
      .orderBy("created_at", "desc");
  }
}
