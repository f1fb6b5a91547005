/**
 * The cached answers of the site-intelligence endpoint (migration 008), one row a site, shared by
 * every instance. A regeneration runs under the row's lease, taken by a conditional UPDATE, so
 * however many instances find the row stale at once, one of them regenerates it; its result is
 * written only over an older one, and the lease given back after.
 */
import type { Knex } from "knex";
import { isUniqueViolation } from "../store-errors.ts";

export interface SiteIntelligenceRow {
  site_id: string;
  /** The site version the row was built from: another version makes it stale. */
  site_version: number;
  /** The crawl whose pages `site` holds; null when no crawl is done. */
  crawl_id: string | null;
  /** JSON: the answer's `site`, or null. */
  site: string | null;
  /** JSON: the answer's `data`. */
  data: string;
  generated_at: number;
  prompt: string;
  prompt_generated_at: number;
  /** When a refresh or a finished crawl made the row stale; null when nothing did. */
  invalidated_at: number | null;
  regen_owner: string | null;
  regen_until: number | null;
}

const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function intelligenceRow(raw: SiteIntelligenceRow): SiteIntelligenceRow {
  return {
    ...raw,
    site_version: Number(raw.site_version),
    generated_at: Number(raw.generated_at),
    prompt_generated_at: Number(raw.prompt_generated_at),
    invalidated_at: num(raw.invalidated_at),
    regen_until: num(raw.regen_until),
  };
}

export class SiteIntelligenceRepo {
  constructor(private readonly knex: Knex) {}

  async get(siteId: string): Promise<SiteIntelligenceRow | undefined> {
    const raw = await this.knex<SiteIntelligenceRow>("site_intelligence")
      .where({ site_id: siteId })
      .first();
    return raw === undefined ? undefined : intelligenceRow(raw);
  }

  /**
   * Writes a regeneration's result (everything but the lease) unless the row already holds a later
   * one (`generated_at` after this one's): a regeneration that started before a crawl's end cannot
   * put the older pages back. An invalidation no later than this regeneration's start is cleared;
   * a later one stays, so the row is still stale. Whether the row was written.
   */
  async put(row: Omit<SiteIntelligenceRow, "regen_owner" | "regen_until">): Promise<boolean> {
    if (await this.#update(row)) return true;
    try {
      await this.knex("site_intelligence").insert({
        ...row,
        invalidated_at: null,
        regen_owner: null,
        regen_until: null,
      });
      return true;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another instance wrote the first row meanwhile: this result replaces it if it is later.
      return this.#update(row);
    }
  }

  /** The conditional UPDATE of `put`: only a row whose result is not later than this one. */
  async #update(row: Omit<SiteIntelligenceRow, "regen_owner" | "regen_until">): Promise<boolean> {
    const { site_id: siteId, invalidated_at: _ignored, ...content } = row;
    const updated = await this.knex("site_intelligence")
      .where({ site_id: siteId })
      .andWhere("generated_at", "<=", row.generated_at)
      .update({
        ...content,
        invalidated_at: this.knex.raw(
          "CASE WHEN invalidated_at <= ? THEN NULL ELSE invalidated_at END",
          [row.generated_at],
        ),
      });
    return updated === 1;
  }

  /** Writes a newer prompt alone (the rest of the row is still fresh); whether it was written. */
  async putPrompt(siteId: string, prompt: string, at: number): Promise<boolean> {
    const updated = await this.knex("site_intelligence")
      .where({ site_id: siteId })
      .andWhere("prompt_generated_at", "<=", at)
      .update({ prompt, prompt_generated_at: at });
    return updated === 1;
  }

  /** Marks the site's row stale (a refresh, a crawl's end); nothing when it has none. */
  async invalidate(siteId: string, at: number): Promise<void> {
    await this.knex("site_intelligence").where({ site_id: siteId }).update({ invalidated_at: at });
  }

  /**
   * Takes the row's regeneration lease for `owner` until `until`, unless another holds one that
   * has not run out; whether it was taken.
   */
  async lease(siteId: string, owner: string, now: number, until: number): Promise<boolean> {
    const taken = await this.knex("site_intelligence")
      .where({ site_id: siteId })
      .andWhere((q) => q.whereNull("regen_until").orWhere("regen_until", "<", now))
      .update({ regen_owner: owner, regen_until: until });
    return taken === 1;
  }

  /**
   * Gives up `owner`'s lease once its regeneration ended, written or failed (a failed one is tried
   * again at the next stale read). Another owner's lease is left alone.
   */
  async releaseLease(siteId: string, owner: string): Promise<void> {
    await this.knex("site_intelligence")
      .where({ site_id: siteId, regen_owner: owner })
      .update({ regen_owner: null, regen_until: null });
  }
}
