/**
 * The vectors a crawl's end stores with the site's index when embeddings are on. They are made
 * before the transaction that ends the crawl (a network call never holds one open), keeping the
 * stored vectors of the passages of pages the crawl found unchanged, when the same provider made
 * them (passage-vectors.ts), so only new or changed text is sent. A provider that fails costs
 * the vectors, not the crawl: the index is stored alone (keyword search), and since it then names
 * no provider, the next crawl makes them.
 */
import type { Logger } from "pino";
import type { Store } from "../../store/store.ts";
import { messageOf } from "../../util/message-of.ts";
import type { BuiltVectors } from "./knowledge-build.ts";
import type { KnowledgeEmbedder } from "./knowledge-embedder.ts";
import type { Passage } from "./knowledge-types.ts";
import { passageVectors } from "./passage-vectors.ts";
import { storedVectors } from "./stored-vectors.ts";

export interface CrawlVectorsRequest {
  siteId: string;
  crawlId: string;
  /** Every passage the site will hold once the crawl's writes are stored. */
  passages: Passage[];
  /** The URLs of the pages the crawl added or found changed: their passages are embedded. */
  changed: ReadonlySet<string>;
  /** The crawl's stop (the service stopping): the provider's requests end with it. */
  signal?: AbortSignal;
}

/**
 * The vectors of `request.passages`, or undefined, logged (the site and crawl, never a
 * passage's text), when the provider failed or the crawl stopped.
 */
export async function crawlVectors(
  parts: { store: Store; embedder: KnowledgeEmbedder; logger: Logger },
  request: CrawlVectorsRequest,
): Promise<BuiltVectors | undefined> {
  const { embedder, logger } = parts;
  const log = { site_id: request.siteId, crawl_id: request.crawlId };
  const previous = storedVectors(
    await parts.store.siteKnowledge.vectors(request.siteId),
    embedder.provider,
    (error) =>
      logger.warn(
        { ...log, err: error.message },
        "stored site knowledge vectors unreadable: every passage is embedded again",
      ),
  );
  let sent = 0;
  const started = performance.now();
  try {
    const index = await passageVectors({
      passages: request.passages,
      previous,
      unchanged: (passage) => !request.changed.has(passage.url),
      embed: (texts, signal) => {
        sent += texts.length;
        return embedder.embed(texts, signal);
      },
      signal: request.signal,
    });
    logger.info(
      {
        ...log,
        passages: index.size,
        embedded: sent,
        embed_ms: Math.round(performance.now() - started),
      },
      "site knowledge vectors made",
    );
    return { index, provider: embedder.provider };
  } catch (error) {
    logger.warn(
      { ...log, passages: request.passages.length, err: messageOf(error) },
      "site knowledge vectors not made: the index is stored for keyword search alone",
    );
    return undefined;
  }
}
