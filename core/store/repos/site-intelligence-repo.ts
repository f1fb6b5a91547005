/**
 * The cached answers of the site-intelligence endpoint (migration 008), one row a site, shared by
 * every instance. A regeneration runs under the row's lease, taken by a conditional UPDATE, so
 * however many instances find the row stale at once, one of them regenerates it.
 */
import type { Knex } from "knex";

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

  /** Writes the site's row whole (a regeneration's result), its lease released. */
  async put(row: SiteIntelligenceRow): Promise<void> {
    const written = { ...row, regen_owner: null, regen_until: null };
    await this.knex("site_intelligence").insert(written).onConflict("site_id").merge();
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

  /** Gives up `owner`'s lease (a regeneration that failed): the next stale read tries again. */
  async releaseLease(siteId: string, owner: string): Promise<void> {
    await this.knex("site_intelligence")
      .where({ site_id: siteId, regen_owner: owner })
      .update({ regen_owner: null, regen_until: null });
  }
}
