/**
 * The vector half of a knowledge search, when embeddings are on: the visitor's question is
 * embedded by the provider and the site's passages ranked by their vectors' closeness to it. The
 * caller fuses this ranking with the keyword one (reciprocal rank fusion); when there is none
 * (embeddings off, a site without vectors, the provider slow or failing), the keyword ranking
 * answers alone, so a spoken turn never waits long on the provider.
 */
import type { Logger } from "pino";
import { messageOf } from "../../util/message-of.ts";
import type { Embed } from "./knowledge-embedder.ts";
import type { VectorIndex } from "./vector-index.ts";

/** How long a search waits for the question's vector before answering by keywords alone. */
export const MEANING_SEARCH_TIMEOUT_MS = 1_500;

export interface MeaningSearchRequest {
  /** The visitor's question: sent to the provider, never logged (its length is). */
  query: string;
  /** How many passage ids to rank at most. */
  limit: number;
  /** The site's vectors; undefined when its index holds none. */
  index: VectorIndex | undefined;
  /** The provider's (knowledgeEmbedder); undefined when embeddings are off. */
  embed: Embed | undefined;
  logger: Logger;
  /** MEANING_SEARCH_TIMEOUT_MS unless given. */
  timeoutMs?: number;
  /** The caller's end (a client gone): the search stops and answers undefined. */
  signal?: AbortSignal;
}

/** Why the wait for the vector ended early, told apart from the caller's signal. */
class Timeout extends Error {}

/**
 * The ids of the passages closest in meaning to the question, closest first, or undefined when
 * there is no such ranking to fuse (logged when the provider was slow or failed).
 */
export async function meaningSearch(request: MeaningSearchRequest): Promise<string[] | undefined> {
  const { index, embed, signal } = request;
  if (embed === undefined || index === undefined || index.size === 0 || signal?.aborted) {
    return undefined;
  }
  const timeoutMs = request.timeoutMs ?? MEANING_SEARCH_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Timeout()), timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  // The provider should stop on the signal; a wait that ends on it does not depend on that.
  const ended = new Promise<never>((_, reject) =>
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason as Error), {
      once: true,
    }),
  );
  const log = { query_chars: request.query.length };
  try {
    const [vector] = await Promise.race([embed([request.query], controller.signal), ended]);
    return index.search(vector!, request.limit).map((hit) => hit.id);
  } catch (error) {
    if (controller.signal.reason instanceof Timeout) {
      request.logger.warn(
        { ...log, timeout_ms: timeoutMs },
        "meaning search timed out: keyword ranking alone",
      );
    } else if (!signal?.aborted) {
      request.logger.warn(
        { ...log, err: messageOf(error) },
        "meaning search failed: keyword ranking alone",
      );
    }
    return undefined;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    controller.abort();
  }
}
