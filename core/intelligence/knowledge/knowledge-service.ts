/**
 * A site's knowledge as the agent's tool, the API, the CLI and the dashboard read it: searches
 * answered from the site's index held in memory (knowledge-cache.ts), fused with the meaning
 * search when embeddings are on and the site has vectors (fused-search.ts), and what the index
 * holds, read from the store.
 *
 * An index is loaded from the store on its site's first search here (another instance built it
 * at a crawl's end), and asked about again at most every 5 s (its `built_at`, a cheap read) so a
 * crawl that ended on another instance is seen; a crawl on this one hands its index over at once.
 * One stored in another format (an older release's) is built again from the stored pages and
 * stored (knowledge-loader.ts). A site changed or deleted (the site change channel) is asked about at once, so a
 * deleted site's index leaves memory with it. A site without knowledge answers an empty list and
 * zero counts, never an error.
 */
import type { Logger } from "pino";
import { ALL_SITES, type SiteChangeChannel } from "../../sites/site-cache.ts";
import type { Store } from "../../store/store.ts";
import type { KnowledgeHolder } from "./crawl-knowledge.ts";
import { fusedSearch } from "./fused-search.ts";
import type { BuiltKnowledge } from "./knowledge-build.ts";
import { KnowledgeCache, type HeldKnowledge } from "./knowledge-cache.ts";
import type { KnowledgeEmbedder } from "./knowledge-embedder.ts";
import { MAX_SEARCH_LIMIT } from "./knowledge-index.ts";
import { loadKnowledge, type KnowledgeLoaderParts } from "./knowledge-loader.ts";
import type {
  KnowledgeFailure,
  KnowledgeHit,
  KnowledgePage,
  KnowledgeReader,
  KnowledgeStats,
} from "./knowledge-types.ts";

/** How long a held index is used before the store is asked whether it is still the latest. */
export const KNOWLEDGE_RECHECK_MS = 5_000;

export interface KnowledgeServiceParts {
  store: Store;
  logger: Logger;
  /**
   * The most bytes of indexes held (SITEVOICE_CACHE_KNOWLEDGE_MB), by the stored length of each
   * index and its vectors.
   */
  cacheBytes: number;
  /** Site changes and deletions, on this instance and the others. */
  channel: SiteChangeChannel;
  /** The embeddings provider's (SITEVOICE_EMBEDDINGS); undefined when off: keywords alone. */
  embedder?: KnowledgeEmbedder;
  /** How long a search waits for the question's vector (MEANING_SEARCH_TIMEOUT_MS unless given). */
  meaningTimeoutMs?: number;
  now?: () => number;
}

export class KnowledgeService implements KnowledgeReader, KnowledgeHolder {
  readonly #cache: KnowledgeCache;
  readonly #now: () => number;
  readonly #loader: KnowledgeLoaderParts;
  /** A site's index being read (or built), shared by the searches that wait for it. */
  readonly #loading = new Map<string, Promise<HeldKnowledge>>();
  /** Checks started by the channel, for `idle`. */
  readonly #running = new Set<Promise<unknown>>();

  constructor(private readonly parts: KnowledgeServiceParts) {
    this.#cache = new KnowledgeCache(parts.cacheBytes);
    this.#now = parts.now ?? Date.now;
    const { store, logger, embedder } = parts;
    this.#loader = { store, logger, provider: embedder?.provider, now: this.#now };
    parts.channel.subscribe((siteId) => this.#changed(siteId));
  }

  /**
   * At most `limit` (clamped to 1..5) passages for `query`, best first; none for an empty one.
   * `signal` (the client gone) ends the wait for the meaning search.
   */
  async search(
    siteId: string,
    query: string,
    limit: number,
    signal?: AbortSignal,
  ): Promise<KnowledgeHit[]> {
    if (query.trim() === "") return [];
    const { index, vectors } = await this.#held(siteId);
    if (index === undefined) return [];
    return fusedSearch({
      siteId,
      query,
      limit: Math.min(Math.max(Math.trunc(limit) || 1, 1), MAX_SEARCH_LIMIT),
      index,
      vectors,
      embed: this.parts.embedder?.embed,
      logger: this.parts.logger,
      timeoutMs: this.parts.meaningTimeoutMs,
      signal,
    });
  }

  async stats(siteId: string): Promise<KnowledgeStats> {
    const row = await this.parts.store.siteKnowledge.summary(siteId);
    if (row === undefined) {
      return { pages: 0, sections: 0, passages: 0, languages: [], indexed_at: null };
    }
    return {
      pages: row.pages,
      sections: row.sections,
      passages: row.passages,
      languages: row.pages > 0 ? (JSON.parse(row.languages) as string[]) : [],
      indexed_at: row.passages > 0 ? new Date(row.built_at).toISOString() : null,
    };
  }

  async pages(siteId: string): Promise<KnowledgePage[]> {
    const rows = await this.parts.store.siteKnowledge.pages(siteId);
    return rows.map((row) => ({
      url: row.url,
      title: row.title ?? new URL(row.url).pathname,
      sections: row.section_count,
    }));
  }

  async failures(siteId: string): Promise<KnowledgeFailure[]> {
    const row = await this.parts.store.siteKnowledge.summary(siteId);
    return row === undefined ? [] : (JSON.parse(row.failures) as KnowledgeFailure[]);
  }

  /** A crawl here stored `built`, at `builtAt`: held from now on, no load needed. */
  adopt(
    siteId: string,
    built: Pick<BuiltKnowledge, "index" | "vectors">,
    builtAt: number,
    size: number,
  ): void {
    const { index, vectors } = built;
    this.#cache.set(siteId, { index, vectors, builtAt, checkedAt: this.#now(), size });
  }

  /** Whether this instance holds an index of the site now. */
  holds(siteId: string): boolean {
    return this.#cache.peek(siteId)?.index !== undefined;
  }

  /** Resolves once the checks the channel started have ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /** What is held of the site: checked against the store when due, loaded when missing. */
  #held(siteId: string): Promise<HeldKnowledge> {
    const held = this.#cache.get(siteId);
    if (held !== undefined && this.#now() - held.checkedAt < KNOWLEDGE_RECHECK_MS) {
      return Promise.resolve(held);
    }
    let loading = this.#loading.get(siteId);
    if (loading === undefined) {
      loading = this.#check(siteId, held).finally(() => this.#loading.delete(siteId));
      this.#loading.set(siteId, loading);
    }
    return loading;
  }

  /** Keeps `held` when the stored index is still the one it holds; else reads the stored one. */
  async #check(siteId: string, held: HeldKnowledge | undefined): Promise<HeldKnowledge> {
    const checkedAt = this.#now();
    const stamp = await this.parts.store.siteKnowledge.stamp(siteId);
    if (held !== undefined && held.builtAt === stamp?.built_at) {
      held.checkedAt = checkedAt;
      return held;
    }
    const row = stamp === undefined ? undefined : await this.parts.store.siteKnowledge.get(siteId);
    const fresh: HeldKnowledge =
      row === undefined
        ? { index: undefined, vectors: undefined, builtAt: undefined, checkedAt, size: 1 }
        : { ...(await loadKnowledge(this.#loader, row)), checkedAt };
    // A crawl here may have handed its index over while this one was read: the later stands.
    const now = this.#cache.peek(siteId);
    if (now !== undefined && now !== held && (now.builtAt ?? -1) > (fresh.builtAt ?? -1)) {
      return now;
    }
    this.#cache.set(siteId, fresh);
    return fresh;
  }

  /** A site changed or was deleted: asked about now, so a deleted site's index leaves. */
  #changed(siteId: string): void {
    if (siteId === ALL_SITES) {
      this.#cache.staleAll();
      return;
    }
    const held = this.#cache.peek(siteId);
    if (held === undefined) return;
    held.checkedAt = Number.NEGATIVE_INFINITY;
    const check = this.#held(siteId).catch((err: unknown) =>
      this.parts.logger.warn({ err, site_id: siteId }, "site knowledge not checked"),
    );
    this.#running.add(check);
    void check.finally(() => this.#running.delete(check));
  }
}
