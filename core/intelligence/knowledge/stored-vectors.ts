/**
 * A site's stored vectors as the embeddings provider in use reads them. Vectors are only
 * comparable with those of the model that made them, so another provider's (or a row without
 * any) counts as none, as do vectors that cannot be read; either way the caller goes on without
 * them (a search by keywords alone, a crawl embedding every passage again).
 */
import type { SiteKnowledgeRow } from "../../store/repos/site-knowledge-repo.ts";
import { VectorIndex, VectorIndexError } from "./vector-index.ts";

/**
 * The vectors `stored` holds when `provider` made them; undefined without embeddings
 * (`provider` undefined), without vectors of that provider, or when they cannot be read, which
 * `unreadable` is told (to log).
 */
export function storedVectors(
  stored: Pick<SiteKnowledgeRow, "vectors" | "vectors_provider"> | undefined,
  provider: string | undefined,
  unreadable: (error: VectorIndexError) => void,
): VectorIndex | undefined {
  if (provider === undefined || stored?.vectors == null || stored.vectors_provider !== provider) {
    return undefined;
  }
  try {
    return VectorIndex.load(stored.vectors);
  } catch (error) {
    if (!(error instanceof VectorIndexError)) throw error;
    unreadable(error);
    return undefined;
  }
}
