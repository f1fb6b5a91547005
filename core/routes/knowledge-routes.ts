/**
 * A site's knowledge for the business, under `/v1/sites/:id` (`sites:read`): `GET knowledge?q=&limit=`
 * answers the passages the agent's `search_site` would get for the question, with `meta.took_ms`;
 * `GET knowledge/stats` what the knowledge holds. A site whose crawl found nothing answers an
 * empty list and zero counts.
 */
import { Router } from "express";
import type { Logger } from "pino";
import { abortOnClientGone } from "../http/client-gone.ts";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { sendData } from "../http/envelope.ts";
import { parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import { KNOWLEDGE_QUERY, knowledgeQueryText } from "../intelligence/knowledge/knowledge-query.ts";
import type { KnowledgeReader } from "../intelligence/knowledge/knowledge-types.ts";
import { timedSearch } from "../intelligence/knowledge/timed-search.ts";
import type { SiteService } from "../sites/site-service.ts";

export interface KnowledgeRouteParts {
  sites: Pick<SiteService, "assertOwned">;
  knowledge: Pick<KnowledgeReader, "search" | "stats">;
  logger: Logger;
}

export function knowledgeRoutes(
  parts: KnowledgeRouteParts,
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();

  router.get("/:id/knowledge", requireKey("sites:read"), async (req, res) => {
    const query = queryParams(req, ["q", "limit"]);
    const text = knowledgeQueryText(query.q, "q");
    const limit = parseLimit(query.limit, {
      fallback: KNOWLEDGE_QUERY.defaultLimit,
      max: KNOWLEDGE_QUERY.maxLimit,
    });
    const siteId = req.params.id as string;
    await parts.sites.assertOwned(principalOf(req), siteId);
    const { items, tookMs } = await timedSearch(
      parts.knowledge,
      { siteId, query: text, limit, signal: abortOnClientGone(res).signal },
      { logger: parts.logger, requestId: req.id },
    );
    sendData(req, res, items, { meta: { took_ms: tookMs } });
  });

  router.get("/:id/knowledge/stats", requireKey("sites:read"), async (req, res) => {
    queryParams(req, []);
    const siteId = req.params.id as string;
    await parts.sites.assertOwned(principalOf(req), siteId);
    sendData(req, res, await parts.knowledge.stats(siteId));
  });

  return router;
}
