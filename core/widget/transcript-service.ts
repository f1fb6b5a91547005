/**
 * `POST /v1/:siteId/transcript`: a conversation's turns, kept for the site's retention days (0
 * keeps none) and deleted by the sweeper when they expire. The same signed body again in the
 * session is kept once, and answered as the first was.
 */
import { newId } from "../store/ids.ts";
import { inBatches } from "../store/in-batches.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { Store } from "../store/store.ts";
import type { SiteConfig } from "../sites/site-types.ts";
import type { Transcript as TranscriptCreate } from "../types/generated/transcript-create.ts";
import { replayKey } from "./replay-key.ts";

const DAY_MS = 24 * 60 * 60_000;

export class TranscriptService {
  private readonly now: () => number;

  constructor(private readonly parts: { store: Store; now?: () => number }) {
    this.now = parts.now ?? Date.now;
  }

  async save(session: SessionRow, site: SiteConfig, body: TranscriptCreate, signedBody: Buffer) {
    const days = site.transcript_retention_days;
    if (days <= 0) return { stored: false };
    const at = this.now();
    await this.parts.store.leads.insertTranscriptOnce({
      id: newId("trn"),
      site_id: session.site_id,
      session_id: session.id,
      user_fingerprint: session.user_fingerprint,
      turns: JSON.stringify(body.turns),
      page_url: body.page_url ?? session.page_url,
      replay_key: replayKey(session.id, "transcript", signedBody),
      created_at: at,
      expires_at: at + days * DAY_MS,
    });
    return { stored: true };
  }

  /** Deletes the transcripts past their retention, `batch` at a time; how many. */
  deleteExpired(batch: number): Promise<number> {
    const now = this.now();
    return inBatches((limit) => this.parts.store.leads.deleteExpiredTranscripts(now, limit), batch);
  }
}
