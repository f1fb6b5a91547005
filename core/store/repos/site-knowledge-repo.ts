/**
 * A site's knowledge as stored (migrations 023, 024): its pages' passages with what the next
 * crawl sends back to ask for them conditionally (`site_pages`), and its serialized search index
 * with what it holds and, when embeddings are on, its passages' vectors (`site_knowledge`). The
 * rows go with the site (foreign keys, ON DELETE CASCADE).
 */
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";

export interface SitePageRow {
  site_id: string;
  /** SHA-256 (hex) of `url`. */
  url_hash: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  /** SHA-256 (hex) of the page's passages' canonical JSON. */
  content_hash: string;
  title: string | null;
  description: string | null;
  /** JSON array of the page's section ids (its outline, for a 304). */
  section_ids: string;
  /** JSON array of the page's links within the site (followed after a 304 too). */
  links: string;
  language: string | null;
  section_count: number;
  passage_count: number;
  /** JSON array of Passage. */
  passages: string;
  /** The crawl that stored the page's present content. */
  crawl_id: string | null;
  updated_at: number;
}

/** A page without its passages: what a crawl needs to ask for it again. */
export type KnownPageRow = Omit<SitePageRow, "passages">;

/** What a later answer of an unchanged page may change: its validators, outline and links. */
export type PageTouch = Pick<
  SitePageRow,
  "etag" | "last_modified" | "title" | "description" | "section_ids" | "links"
>;

export interface SiteKnowledgeRow {
  site_id: string;
  /** The index's format version (knowledge-index.ts): another one is rebuilt from the pages. */
  format: number;
  /** The language the index stems words for. */
  language: string;
  serialized: string;
  built_at: number;
  pages: number;
  sections: number;
  passages: number;
  /** JSON array of primary language subtags, sorted. */
  languages: string;
  crawl_id: string | null;
  /** JSON array of KnowledgeFailure. */
  failures: string;
  /** VectorIndex.serialize() of the passages' vectors; null without (embeddings off or failed). */
  vectors: string | null;
  /** The embeddings provider (its SITEVOICE_EMBEDDINGS type) that made `vectors`. */
  vectors_provider: string | null;
}

/** The knowledge row without its index and vectors: what stats and failures read. */
export type KnowledgeSummaryRow = Omit<SiteKnowledgeRow, "serialized" | "vectors">;

const KNOWN_COLUMNS = [
  "site_id",
  "url_hash",
  "url",
  "etag",
  "last_modified",
  "content_hash",
  "title",
  "description",
  "section_ids",
  "links",
  "language",
  "section_count",
  "passage_count",
  "crawl_id",
  "updated_at",
];

const SUMMARY_COLUMNS = [
  "site_id",
  "format",
  "language",
  "built_at",
  "pages",
  "sections",
  "passages",
  "languages",
  "crawl_id",
  "failures",
  "vectors_provider",
];

/** Rows one DELETE names at most (bound parameters stay far below every driver's limit). */
const DELETE_BATCH = 500;

function knownRow(raw: KnownPageRow): KnownPageRow {
  return {
    ...raw,
    section_count: Number(raw.section_count),
    passage_count: Number(raw.passage_count),
    updated_at: Number(raw.updated_at),
  };
}

function summaryRow<T extends KnowledgeSummaryRow>(raw: T): T {
  return {
    ...raw,
    format: Number(raw.format),
    built_at: Number(raw.built_at),
    pages: Number(raw.pages),
    sections: Number(raw.sections),
    passages: Number(raw.passages),
  };
}

export class SiteKnowledgeRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /** The site's pages without their passages. */
  async knownPages(siteId: string): Promise<KnownPageRow[]> {
    const rows = await this.knex("site_pages").select(KNOWN_COLUMNS).where({ site_id: siteId });
    return (rows as KnownPageRow[]).map(knownRow);
  }

  /** Every page's passages (JSON), in URL order: what the index is built from. */
  async passages(siteId: string): Promise<{ url: string; passages: string }[]> {
    const rows: { url: string; passages: string }[] = await this.knex("site_pages")
      .select("url", "passages")
      .where({ site_id: siteId });
    return rows.sort((a, b) => compare(a.url, b.url));
  }

  /** The site's pages with their titles and section counts, in URL order. */
  async pages(
    siteId: string,
  ): Promise<{ url: string; title: string | null; section_count: number }[]> {
    const rows: { url: string; title: string | null; section_count: number }[] = await this.knex(
      "site_pages",
    )
      .select("url", "title", "section_count")
      .where({ site_id: siteId });
    return rows
      .map((row) => ({ ...row, section_count: Number(row.section_count) }))
      .sort((a, b) => compare(a.url, b.url));
  }

  /** Writes a page whole, over what was stored of it. */
  async putPage(row: SitePageRow): Promise<void> {
    const insert = this.knex("site_pages").insert(row);
    await (this.client === "mysql"
      ? insert.onConflict().merge()
      : insert.onConflict(["site_id", "url_hash"]).merge());
  }

  /** Updates what an unchanged page's new answer carried; its passages stay. */
  async touchPage(siteId: string, urlHash: string, touch: PageTouch): Promise<void> {
    await this.knex("site_pages").where({ site_id: siteId, url_hash: urlHash }).update(touch);
  }

  /** Deletes the site's pages of these URL hashes; how many. */
  async deletePages(siteId: string, urlHashes: readonly string[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < urlHashes.length; i += DELETE_BATCH) {
      deleted += await this.knex("site_pages")
        .where({ site_id: siteId })
        .whereIn("url_hash", urlHashes.slice(i, i + DELETE_BATCH))
        .delete();
    }
    return deleted;
  }

  /** The site's index with what it holds. */
  async get(siteId: string): Promise<SiteKnowledgeRow | undefined> {
    const raw = await this.knex<SiteKnowledgeRow>("site_knowledge")
      .where({ site_id: siteId })
      .first();
    return raw === undefined ? undefined : summaryRow(raw);
  }

  /** What the site's index holds, without the index. */
  async summary(siteId: string): Promise<KnowledgeSummaryRow | undefined> {
    const raw = await this.knex("site_knowledge")
      .select(SUMMARY_COLUMNS)
      .where({ site_id: siteId })
      .first();
    return raw === undefined ? undefined : summaryRow(raw as KnowledgeSummaryRow);
  }

  /** The site's vectors and the provider that made them, without its index. */
  async vectors(
    siteId: string,
  ): Promise<Pick<SiteKnowledgeRow, "vectors" | "vectors_provider"> | undefined> {
    return (await this.knex("site_knowledge")
      .select("vectors", "vectors_provider")
      .where({ site_id: siteId })
      .first()) as Pick<SiteKnowledgeRow, "vectors" | "vectors_provider"> | undefined;
  }

  /** When the site's index was built, and in which format: the cheap check of a held index. */
  async stamp(siteId: string): Promise<{ built_at: number; format: number } | undefined> {
    const raw = (await this.knex("site_knowledge")
      .select("built_at", "format")
      .where({ site_id: siteId })
      .first()) as { built_at: number; format: number } | undefined;
    return raw === undefined
      ? undefined
      : { built_at: Number(raw.built_at), format: Number(raw.format) };
  }

  /** Writes the site's index whole, over the one stored. */
  async put(row: SiteKnowledgeRow): Promise<void> {
    const insert = this.knex("site_knowledge").insert(row);
    await (this.client === "mysql"
      ? insert.onConflict().merge()
      : insert.onConflict(["site_id"]).merge());
  }

  /** Records the latest crawl's failures, the index unchanged; false when the site has none. */
  async putFailures(siteId: string, failures: string, crawlId: string): Promise<boolean> {
    const updated = await this.knex("site_knowledge")
      .where({ site_id: siteId })
      .update({ failures, crawl_id: crawlId });
    return updated === 1;
  }

  /**
   * Replaces the index built at `builtAt` (one of another format) by `index`; false when another
   * was stored meanwhile (a crawl's), which then stands.
   */
  async replaceIndex(
    siteId: string,
    builtAt: number,
    index: Pick<SiteKnowledgeRow, "format" | "language" | "serialized" | "built_at">,
  ): Promise<boolean> {
    const updated = await this.knex("site_knowledge")
      .where({ site_id: siteId, built_at: builtAt })
      .update(index);
    return updated === 1;
  }
}

/** Code-point order, the same on every database (their collations differ). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
