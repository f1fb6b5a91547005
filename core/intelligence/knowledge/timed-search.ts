/**
 * A knowledge search as the endpoints run it: timed, and logged in one line with its size, its
 * time and where its passages are (`url#section_id`), never their text nor the question's words
 * (a visitor's question may say who they are or what ails them; its length is logged instead).
 */
import type { Logger } from "pino";
import type { KnowledgeHit, KnowledgeReader } from "./knowledge-types.ts";

export interface TimedSearch {
  items: KnowledgeHit[];
  /** Milliseconds the search took, to the hundredth. */
  tookMs: number;
}

export async function timedSearch(
  reader: Pick<KnowledgeReader, "search">,
  search: {
    siteId: string;
    query: string;
    limit: number;
    /** The client gone: the search ends its wait for the meaning search. */
    signal?: AbortSignal;
  },
  log?: { logger: Logger; requestId?: string },
): Promise<TimedSearch> {
  const started = performance.now();
  const items = await reader.search(search.siteId, search.query, search.limit, search.signal);
  const tookMs = Math.round((performance.now() - started) * 100) / 100;
  log?.logger.info(
    {
      request_id: log.requestId,
      site_id: search.siteId,
      query_chars: search.query.length,
      limit: search.limit,
      returned: items.length,
      found: items.map((hit) =>
        hit.section_id === null ? hit.url : `${hit.url}#${hit.section_id}`,
      ),
      took_ms: tookMs,
    },
    "knowledge search",
  );
  return { items, tookMs };
}
