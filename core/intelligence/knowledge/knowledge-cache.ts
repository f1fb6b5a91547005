/**
 * The sites' indexes (and their vectors) this instance holds in memory, bounded by their size
 * (SITEVOICE_CACHE_KNOWLEDGE_MB): the least recently searched leave first. A site known to have
 * no index is held too (as nothing), so its searches do not each ask the store.
 */
import { LRUCache } from "lru-cache";
import type { KnowledgeIndex } from "./knowledge-index.ts";
import type { VectorIndex } from "./vector-index.ts";

/** What is held of one site. */
export interface HeldKnowledge {
  /** Undefined when the site has no index stored. */
  index: KnowledgeIndex | undefined;
  /**
   * Its passages' vectors, for the meaning search: undefined when none are stored, or they are
   * not the embeddings provider's in use (or embeddings are off).
   */
  vectors: VectorIndex | undefined;
  /** The stored index's `built_at` (undefined without one): another is another index. */
  builtAt: number | undefined;
  /** When the store was last asked whether the index is still this one. */
  checkedAt: number;
  /** Its size for the bound: the stored lengths of the index and of the vectors held. */
  size: number;
}

export class KnowledgeCache {
  readonly #held: LRUCache<string, HeldKnowledge>;

  /** Holds up to `maxBytes` of indexes and vectors (by their stored length). */
  constructor(maxBytes: number) {
    this.#held = new LRUCache<string, HeldKnowledge>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (held) => Math.max(1, held.size),
    });
  }

  get(siteId: string): HeldKnowledge | undefined {
    return this.#held.get(siteId);
  }

  /** Without making it the most recently used. */
  peek(siteId: string): HeldKnowledge | undefined {
    return this.#held.peek(siteId);
  }

  /** Holds `held` (nothing when it alone is larger than the bound). */
  set(siteId: string, held: HeldKnowledge): void {
    this.#held.set(siteId, held);
  }

  delete(siteId: string): void {
    this.#held.delete(siteId);
  }

  /** Every site held, to be checked against the store on its next use. */
  staleAll(): void {
    for (const held of this.#held.values()) held.checkedAt = Number.NEGATIVE_INFINITY;
  }

  /** The total size held. */
  get size(): number {
    return this.#held.calculatedSize;
  }
}
