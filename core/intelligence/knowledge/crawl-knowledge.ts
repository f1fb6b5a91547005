/**
 * What a crawl does with the site's knowledge: before, the stored pages it asks for
 * conditionally; at its end, the writes of its plan (knowledge-plan.ts) and, when a page was
 * added, changed or removed (or no index of the current format and language is stored, or
 * embeddings are on and no vectors of their provider are), the site's index built again, with
 * its passages' vectors when embeddings are on (crawl-vectors.ts, before the transaction). The
 * writes go in the transaction that ends the crawl; the new index is held by this instance once
 * that committed.
 */
import type { Logger } from "pino";
import type { CrawlCounts } from "../../store/repos/crawls-repo.ts";
import type { KnownPageRow } from "../../store/repos/site-knowledge-repo.ts";
import type { Store } from "../../store/store.ts";
import type { CrawlResult, KnownPage } from "../crawler/crawl-types.ts";
import { crawlVectors } from "./crawl-vectors.ts";
import {
  buildKnowledge,
  primaryLanguage,
  type BuiltKnowledge,
  type IndexedPage,
} from "./knowledge-build.ts";
import type { KnowledgeEmbedder } from "./knowledge-embedder.ts";
import { KNOWLEDGE_INDEX_FORMAT } from "./knowledge-index.ts";
import { knownPages, planKnowledge, type KnowledgePlan } from "./knowledge-plan.ts";
import type { Passage } from "./knowledge-types.ts";

/** What holds indexes in memory (KnowledgeService): given each index a crawl built. */
export interface KnowledgeHolder {
  /** `size`: the stored length of the index and its vectors. */
  adopt(
    siteId: string,
    built: Pick<BuiltKnowledge, "index" | "vectors">,
    builtAt: number,
    size: number,
  ): void;
}

/** A crawl's end, ready to write. */
export interface KnowledgeUpdate {
  counts: CrawlCounts;
  /** The writes, in the transaction that ends the crawl. */
  write(tx: Store): Promise<void>;
  /** After the transaction committed. */
  committed(): void;
}

/** The site's stored pages before a crawl: the rows, and as the crawler takes them. */
export interface StoredPages {
  rows: KnownPageRow[];
  known: Map<string, KnownPage>;
}

export class CrawlKnowledge {
  constructor(
    private readonly parts: {
      store: Store;
      holder: KnowledgeHolder;
      logger: Logger;
      /** The embeddings provider's (SITEVOICE_EMBEDDINGS); undefined when off. */
      embedder?: KnowledgeEmbedder;
      now?: () => number;
    },
  ) {}

  /** The site's stored pages, for the crawler to ask for conditionally. */
  async stored(siteId: string): Promise<StoredPages> {
    const rows = await this.parts.store.siteKnowledge.knownPages(siteId);
    return { rows, known: knownPages(rows) };
  }

  /**
   * The update of the crawl `crawlId` of `site` that gave `result` (`done` or not: a crawl that
   * failed writes nothing, and counts what it read); undefined, logged, when it could not be
   * worked out: the crawl's end is then recorded without it, and the knowledge stays as it was.
   * `crawl.signal` (the crawl's stop) ends the provider's requests for vectors.
   */
  async prepare(
    site: { site_id: string; language: string },
    crawl: { id: string; done: boolean; signal?: AbortSignal },
    result: CrawlResult,
    stored: StoredPages,
  ): Promise<KnowledgeUpdate | undefined> {
    try {
      return await this.#update(site, crawl, result, stored);
    } catch (err) {
      this.parts.logger.warn(
        { err, crawl_id: crawl.id, site_id: site.site_id },
        "site knowledge not updated",
      );
      return undefined;
    }
  }

  async #update(
    site: { site_id: string; language: string },
    crawl: { id: string; done: boolean; signal?: AbortSignal },
    result: CrawlResult,
    stored: StoredPages,
  ): Promise<KnowledgeUpdate> {
    const siteId = site.site_id;
    const now = (this.parts.now ?? Date.now)();
    const plan = planKnowledge(result, stored.rows, {
      siteId,
      crawlId: crawl.id,
      done: crawl.done,
      now,
    });
    if (!crawl.done) return { counts: plan.counts, write: async () => {}, committed: () => {} };
    const failures = JSON.stringify(plan.failures);
    const current = await this.parts.store.siteKnowledge.summary(siteId);
    const { embedder } = this.parts;
    const rebuild =
      plan.put.length > 0 ||
      plan.remove.length > 0 ||
      current === undefined ||
      current.format !== KNOWLEDGE_INDEX_FORMAT ||
      current.language !== primaryLanguage(site.language) ||
      (embedder !== undefined && current.vectors_provider !== embedder.provider);
    let built: BuiltKnowledge | undefined;
    if (rebuild) {
      const pages = await this.#pagesAfter(siteId, stored.rows, plan);
      const vectors =
        embedder === undefined
          ? undefined
          : await crawlVectors(
              { store: this.parts.store, embedder, logger: this.parts.logger },
              {
                siteId,
                crawlId: crawl.id,
                passages: pages.flatMap((page) => page.passages),
                changed: new Set(plan.put.map((row) => row.url)),
                signal: crawl.signal,
              },
            );
      const started = performance.now();
      built = buildKnowledge(
        pages,
        { siteId, language: site.language },
        { at: now, crawlId: crawl.id, failures, vectors },
      );
      this.parts.logger.info(
        {
          site_id: siteId,
          crawl_id: crawl.id,
          passages: built.row.passages,
          build_ms: Math.round(performance.now() - started),
        },
        "site knowledge indexed",
      );
    }
    return {
      counts: plan.counts,
      write: async (tx) => {
        const repo = tx.siteKnowledge;
        for (const row of plan.put) await repo.putPage(row);
        for (const { urlHash, touch } of plan.touch) await repo.touchPage(siteId, urlHash, touch);
        await repo.deletePages(siteId, plan.remove);
        if (built !== undefined) await repo.put(built.row);
        else await repo.putFailures(siteId, failures, crawl.id);
      },
      committed: () => {
        if (built !== undefined) {
          const size = built.row.serialized.length + (built.row.vectors?.length ?? 0);
          this.parts.holder.adopt(siteId, built, now, size);
        }
      },
    };
  }

  /** Every page the site will have once the plan is written, with its passages. */
  async #pagesAfter(
    siteId: string,
    rows: readonly KnownPageRow[],
    plan: KnowledgePlan,
  ): Promise<IndexedPage[]> {
    const removed = new Set(plan.remove);
    const replaced = new Set(plan.put.map((row) => row.url));
    const passages = new Map(
      (await this.parts.store.siteKnowledge.passages(siteId)).map((row) => [row.url, row.passages]),
    );
    const kept = rows
      .filter((row) => !removed.has(row.url_hash) && !replaced.has(row.url))
      .map((row) => ({
        url: row.url,
        language: row.language,
        sectionCount: row.section_count,
        passages: JSON.parse(passages.get(row.url) ?? "[]") as Passage[],
      }));
    const written = plan.put.map((row) => ({
      url: row.url,
      language: row.language,
      sectionCount: row.section_count,
      passages: JSON.parse(row.passages) as Passage[],
    }));
    return [...kept, ...written];
  }
}
