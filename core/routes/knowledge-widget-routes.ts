/**
 * `POST /v1/:siteId/knowledge`: the agent's `search_site`, called by the widget and checked as
 * `query` is (the site's Origin, then the session's signature over the raw body; or, for
 * debugging, an API key with `query:test` instead), with its own limit of 300 a minute per site.
 * Each signed call is a `function_call` usage event named `search_site`. Declared in the route
 * table (table/route.ts), whose phases make those checks.
 */
import type { Logger } from "pino";
import { KNOWLEDGE_QUERY } from "../intelligence/knowledge/knowledge-query.ts";
import type { KnowledgeReader } from "../intelligence/knowledge/knowledge-types.ts";
import { timedSearch } from "../intelligence/knowledge/timed-search.ts";
import type { SiteKnowledgeSearch } from "../types/generated/knowledge-search.ts";
import type { UsageService } from "../widget/usage-service.ts";
import type { Route } from "./table/route.ts";

export interface KnowledgeWidgetRouteParts {
  usage: Pick<UsageService, "recordSiteSearch">;
  knowledge: Pick<KnowledgeReader, "search">;
  logger: Logger;
}

/** A spoken turn asks once or twice: the query endpoint's 300 a minute, in a bucket of its own. */
export const KNOWLEDGE_LIMIT = {
  name: "widget-knowledge-minute",
  points: 300,
  durationSeconds: 60,
};

/** One passage of an answer, as the OpenAPI document describes it. */
const PASSAGE = {
  type: "object",
  required: ["url", "title", "heading", "section_id", "text", "score"],
  properties: {
    url: { type: "string", format: "uri" },
    title: { type: "string" },
    heading: { type: "string" },
    section_id: { type: ["string", "null"] },
    text: { type: "string" },
    score: { type: "number" },
  },
};

export function knowledgeWidgetRoute(parts: KnowledgeWidgetRouteParts): Route<SiteKnowledgeSearch> {
  return {
    id: "searchSiteKnowledge",
    method: "post",
    path: "/v1/:siteId/knowledge",
    summary: "The agent's search_site: the site's passages that answer a question",
    tags: ["widget"],
    access: ["signed", "key:query:test"],
    // A key's call (debugging) counts nothing against the site's widget limit.
    limits: [{ spec: KNOWLEDGE_LIMIT, by: "site", for: "signed" }],
    body: "knowledge-search",
    response: {
      status: 200,
      description: "The passages, best first",
      schema: {
        type: "object",
        required: ["items"],
        properties: { items: { type: "array", items: PASSAGE } },
      },
    },
    errors: ["invalid_request"],
    async handle({ req, body, session, signal }) {
      const siteId = req.params.siteId as string;
      const { items } = await timedSearch(
        parts.knowledge,
        {
          siteId,
          query: body.query,
          limit: body.limit ?? KNOWLEDGE_QUERY.defaultLimit,
          signal,
        },
        { logger: parts.logger, requestId: req.id },
      );
      if (session !== undefined) {
        // Not awaited: the answer does not wait for the batch, and shutdown still flushes it.
        parts.usage
          .recordSiteSearch(session, items.length)
          .catch((err: unknown) =>
            parts.logger.warn({ err, site_id: siteId }, "search_site event not stored"),
          );
      }
      return { data: { items } };
    },
  };
}
