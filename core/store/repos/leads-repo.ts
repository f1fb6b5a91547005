import { newestFirst } from "../newest-first.ts";
import { deleteOldest } from "../delete-oldest.ts";
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";

/** A lead or a transcript is stored once per signed request: see replay-key.ts. */
const REPLAY_KEY = ["site_id", "replay_key"] as const;

export interface LeadRow {
  id: string;
  site_id: string;
  workspace_id: string;
  session_id: string | null;
  user_fingerprint: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  message: string | null;
  page_url: string | null;
  /** JSON object of the other captured fields, or null. */
  fields: string | null;
  /** `widget` (the agent's submit_lead) or `callback` (a person asked for; migration 025). */
  source?: string;
  /** Why a callback was asked for, in one line. */
  reason?: string | null;
  /** JSON array of a callback's turns so far, or null. */
  turns?: string | null;
  status: string;
  notes: string | null;
  update_token_hash: string;
  /** The signed request that wrote it (see replay-key.ts); unique per site. */
  replay_key: string | null;
  created_at: number;
  updated_at: number;
  /** The phone's digits, which a lookup by phone compares (migration 017). */
  phone_digits?: string | null;
  /** When an erasure emptied its personal fields. */
  erased_at?: number | null;
}

/**
 * A phone number's digits without leading zeros (a trunk prefix: 020 in London is +44 20), which
 * a lookup compares: null when it has none.
 */
export const phoneDigits = (phone: string | null): string | null =>
  phone === null ? null : phone.replace(/\D/g, "").replace(/^0+/, "") || null;

export interface TranscriptRow {
  id: string;
  site_id: string;
  session_id: string;
  user_fingerprint: string;
  /** JSON array of turns. */
  turns: string;
  page_url: string | null;
  /** The signed request that wrote it (see replay-key.ts); unique per site. */
  replay_key: string | null;
  created_at: number;
  expires_at: number;
}

export interface LeadCursor {
  created_at: number;
  id: string;
}

export class LeadsRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * Inserts `row` unless a lead with its replay key is already stored for the site; returns the
   * stored lead, `row` itself or the first one. Copies racing on two connections are settled by
   * the unique index: the loser's insert does nothing and it reads the winner's row. Any other
   * failure of the insert (the site deleted meanwhile) is thrown.
   */
  async insertOnce(row: LeadRow & { replay_key: string }): Promise<LeadRow> {
    await insertSkippingDuplicate(this.knex, "leads", row, REPLAY_KEY, this.client);
    const stored = await this.knex<LeadRow>("leads")
      .where({ site_id: row.site_id, replay_key: row.replay_key })
      .first();
    if (stored === undefined) throw new Error(`lead ${row.id} was not stored`);
    return stored;
  }

  /**
   * The site's leads with that email (any case) or phone. Phones compare by their digits, one
   * ending the other (7 digits at least), so `+1 (555) 010-2030` and `555.010.2030` are one, as
   * are `+44 20 7946 0958` and `020 7946 0958`.
   */
  async withContact(
    siteId: string,
    contact: { email: string } | { phone: string },
  ): Promise<LeadRow[]> {
    const q = this.knex<LeadRow>("leads").where({ site_id: siteId });
    if ("email" in contact) q.whereRaw("LOWER(email) = ?", [contact.email.toLowerCase()]);
    else {
      const digits = phoneDigits(contact.phone) ?? "";
      if (digits.length < 7) return [];
      const suffixes: string[] = [];
      for (let start = 0; digits.length - start >= 7; start++) suffixes.push(digits.slice(start));
      q.where((w) =>
        w.where("phone_digits", "like", `%${digits}`).orWhereIn("phone_digits", suffixes),
      );
    }
    return q.orderBy([{ column: "created_at" }, { column: "id" }]);
  }

  async get(id: string): Promise<LeadRow | undefined> {
    return this.knex<LeadRow>("leads").where({ id }).first();
  }

  async update(id: string, fields: Partial<Pick<LeadRow, "status" | "notes" | "updated_at">>) {
    await this.knex("leads").where({ id }).update(fields);
  }

  /** Newest first, keyset-paged. */
  async list(
    workspaceId: string,
    query: {
      limit: number;
      siteIds?: string[];
      siteId?: string;
      status?: string;
      before?: LeadCursor;
    },
  ): Promise<LeadRow[]> {
    const q = this.knex<LeadRow>("leads").where({ workspace_id: workspaceId });
    if (query.siteId !== undefined) q.where({ site_id: query.siteId });
    if (query.siteIds !== undefined) q.whereIn("site_id", query.siteIds);
    if (query.status !== undefined) q.where({ status: query.status });
    return newestFirst(q, query.before).limit(query.limit);
  }

  /** Inserts `row` unless a transcript with its replay key is already stored for the site. */
  async insertTranscriptOnce(row: TranscriptRow & { replay_key: string }): Promise<void> {
    await insertSkippingDuplicate(this.knex, "transcripts", row, REPLAY_KEY, this.client);
  }

  async transcriptsOf(siteId: string): Promise<TranscriptRow[]> {
    return this.knex<TranscriptRow>("transcripts").where({ site_id: siteId }).orderBy("created_at");
  }

  /** Deletes up to `limit` transcripts whose retention ended by `now`, oldest first; how many. */
  async deleteExpiredTranscripts(now: number, limit: number): Promise<number> {
    // Expired at `now` itself too: times are whole milliseconds.
    return deleteOldest(this.knex, "transcripts", now + 1, limit, "expires_at");
  }
}
