/**
 * The provider's calls of widget sessions (migration 015): claimed by the session that reports
 * them, each by one session only.
 */
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";

export interface VoiceCallRow {
  call_id: string;
  session_id: string;
  site_id: string;
  created_at: number;
  ended_at: number | null;
  end_reason: string | null;
  controller: string | null;
  lease_until: number | null;
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
    const insert = this.knex("voice_calls").insert(row);
    // MySQL has no conflict target; setting the key to itself changes nothing (as
    // insert-skipping-duplicate.ts does for tables with an id).
    await (this.client === "mysql"
      ? insert.onConflict().merge({ call_id: this.knex.ref("call_id") })
      : insert.onConflict("call_id").ignore());
    const stored = await this.get(row.call_id);
    if (stored === undefined)
      throw new Error(`voice call ${row.call_id} was neither stored nor found`);
    return stored;
  }

  async get(callId: string): Promise<VoiceCallRow | undefined> {
    return this.knex<VoiceCallRow>("voice_calls").where({ call_id: callId }).first();
  }

  /** The session's calls, the latest first. */
  async ofSession(sessionId: string): Promise<VoiceCallRow[]> {
    return this.knex<VoiceCallRow>("voice_calls")
      .where({ session_id: sessionId })
      .orderBy("created_at", "desc");
  }
}
