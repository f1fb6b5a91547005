/**
 * One search of a site's knowledge: the keyword ranking, fused with the meaning ranking when the
 * site has vectors and embeddings are on. The question is sent to the provider first, the keyword
 * ranking made while it answers; each ranking gives its best FUSION_CANDIDATES passages, which
 * reciprocal rank fusion (rank-fusion.ts) merges before the answer is cut to its limit, so a
 * passage only one ranking found can still rise above one both found lower down. Without a
 * meaning ranking (none to ask, the provider slow or failing: meaning-search.ts logs which),
 * the keyword ranking answers alone, as it does with embeddings off.
 */
import type { Logger } from "pino";
import type { Embed } from "./knowledge-embedder.ts";
import { knowledgeHit, type KnowledgeIndex } from "./knowledge-index.ts";
import type { KnowledgeHit } from "./knowledge-types.ts";
import { meaningSearch } from "./meaning-search.ts";
import { fuseRanks } from "./rank-fusion.ts";
import type { VectorIndex } from "./vector-index.ts";

/** How many passages each ranking gives the fusion. */
export const FUSION_CANDIDATES = 20;

export interface FusedSearchRequest {
  siteId: string;
  query: string;
  /** How many passages to answer at most (already bounded by the caller). */
  limit: number;
  index: KnowledgeIndex;
  /** The site's vectors; undefined when it has none of the provider in use. */
  vectors: VectorIndex | undefined;
  /** The provider's; undefined when embeddings are off. */
  embed: Embed | undefined;
  logger: Logger;
  /** How long the question's vector is waited for (MEANING_SEARCH_TIMEOUT_MS unless given). */
  timeoutMs?: number;
  /** The caller's end (a client gone): the wait for the provider ends with it. */
  signal?: AbortSignal;
}

/**
 * At most `limit` passages, best first. A hit's score is the keyword ranking's BM25+ score when
 * the keyword ranking answers alone, else the fused score (rank-fusion.ts: 1 for a passage first
 * in both rankings, about 0.5 for one first in only one); to four decimals either way.
 */
export async function fusedSearch(request: FusedSearchRequest): Promise<KnowledgeHit[]> {
  const { index, vectors, embed, query, limit } = request;
  const meaning =
    vectors === undefined || embed === undefined
      ? undefined
      : meaningSearch({
          query,
          limit: FUSION_CANDIDATES,
          index: vectors,
          embed,
          logger: request.logger.child({ site_id: request.siteId }),
          timeoutMs: request.timeoutMs,
          signal: request.signal,
        });
  const keyword = index.rank(query, FUSION_CANDIDATES);
  const ranked = await meaning;
  if (ranked === undefined) {
    return keyword.slice(0, limit).map(({ passage, score }) => knowledgeHit(passage, score));
  }
  const hits: KnowledgeHit[] = [];
  for (const { id, score } of fuseRanks([keyword.map(({ passage }) => passage.id), ranked])) {
    const passage = index.passage(id);
    if (passage === undefined) continue;
    hits.push(knowledgeHit(passage, Math.round(score * 1e4) / 1e4));
    if (hits.length === limit) break;
  }
  return hits;
}
