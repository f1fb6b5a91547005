/**
 * The vectors of a site's passages, made when its knowledge index is built (embeddings on). An
 * unchanged page's passages keep the vectors of the previous index, so a nightly re-crawl of an
 * unchanged site sends no text to the provider, and a changed page sends only its own.
 */
import type { Passage } from "./knowledge-types.ts";
import type { Embed } from "./knowledge-embedder.ts";
import { VectorIndex } from "./vector-index.ts";

/**
 * What a passage's vector is made of: its page title, heading path and text, one a line, so a
 * passage that does not repeat its subject ("Closed on Mondays.") still carries it.
 */
export const embeddingText = (passage: Pick<Passage, "title" | "heading" | "text">): string =>
  [passage.title, passage.heading, passage.text].filter((part) => part !== "").join("\n");

export interface PassageVectorsRequest {
  passages: Passage[];
  embed: Embed;
  /** The site's index before this build, whose vectors unchanged passages keep. */
  previous?: VectorIndex;
  /** Whether a passage is as it was when `previous` was built (its page did not change). */
  unchanged?: (passage: Passage) => boolean;
  signal?: AbortSignal;
}

/**
 * The VectorIndex of `passages` by id: one `embed` call for those without a vector to keep (the
 * provider batches). Rejects when `embed` does; the caller then builds the keyword index alone.
 */
export async function passageVectors(request: PassageVectorsRequest): Promise<VectorIndex> {
  const { passages, previous, unchanged } = request;
  const vectors = passages.map((passage) =>
    previous !== undefined && unchanged?.(passage) === true
      ? previous.vector(passage.id)
      : undefined,
  );
  const missing = passages.filter((_, i) => vectors[i] === undefined);
  const made =
    missing.length === 0 ? [] : await request.embed(missing.map(embeddingText), request.signal);
  let next = 0;
  return VectorIndex.build(
    passages.map((passage) => passage.id),
    vectors.map((vector) => vector ?? made[next++]!),
  );
}
