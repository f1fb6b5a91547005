/**
 * `POST /v1/:siteId/knowledge`: the agent's `search_site`, called by the widget and checked as
 * `query` is (the site's Origin, then the session's signature over the raw body; or, for
 * debugging, an API key with `query:test` instead), with its own limit of 300 a minute per site.
 * Each signed call is a `function_call` usage event named `search_site`.
 */
import { Router } from "express";
import type { Logger } from "pino";
import { abortOnClientGone } from "../http/client-gone.ts";
import { principalOf, whenKey, type apiKeyAuth } from "../http/api-key-auth.ts";
import { parseRawJson } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { consumeLimit } from "../http/rate-limit-headers.ts";
import { answerPreflight, requireOrigin } from "../http/site-origin.ts";
import { errors, isServiceError } from "../errors.ts";
import { KNOWLEDGE_QUERY } from "../intelligence/knowledge/knowledge-query.ts";
import type { KnowledgeReader } from "../intelligence/knowledge/knowledge-types.ts";
import { timedSearch } from "../intelligence/knowledge/timed-search.ts";
import type { RateLimiterFactory } from "../limits/rate-limiter.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { SiteKnowledgeSearch } from "../types/generated/knowledge-search.ts";
import { validateBody } from "../validation/schema-validator.ts";
import type { SessionService } from "../widget/session-service.ts";
import type { UsageService } from "../widget/usage-service.ts";
import { rawBody, widgetGuards } from "./widget-guards.ts";

export interface KnowledgeWidgetRouteParts {
  sites: Pick<SiteService, "publicSite" | "assertOwned">;
  sessions: Pick<SessionService, "verify">;
  usage: Pick<UsageService, "recordSiteSearch">;
  knowledge: Pick<KnowledgeReader, "search">;
  limiters: RateLimiterFactory;
  logger: Logger;
}

/** A spoken turn asks once or twice: the query endpoint's 300 a minute, in a bucket of its own. */
export const KNOWLEDGE_LIMIT = {
  name: "widget-knowledge-minute",
  points: 300,
  durationSeconds: 60,
};

const PATH = "/v1/:siteId/knowledge";

export function knowledgeWidgetRoutes(
  parts: KnowledgeWidgetRouteParts,
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();
  const limiter = parts.limiters(KNOWLEDGE_LIMIT);
  const { siteOf, signed } = widgetGuards(parts);
  const searchOf = (body: unknown) => {
    const params = validateBody<SiteKnowledgeSearch>("knowledge-search", body);
    return { query: params.query, limit: params.limit ?? KNOWLEDGE_QUERY.defaultLimit };
  };

  router.options(PATH, async (req, res) => {
    const target = await siteOf(req);
    requireOrigin(req, res, target.site);
    answerPreflight(res, "POST");
  });

  router.post(PATH, rawBody, whenKey(requireKey, "query:test"), async (req, res) => {
    const siteId = req.params.siteId as string;
    // A key's call (debugging) is checked by the key and counts nothing; the widget's by the
    // site's Origin, the session's signature and the site's limit, and counts a usage event.
    let session: Awaited<ReturnType<typeof signed>>["session"] | undefined;
    let body: unknown;
    if (req.principal !== undefined) {
      await parts.sites.assertOwned(principalOf(req), siteId).catch((e: unknown) => {
        throw isServiceError(e) && e.code === "not_found" ? errors.siteNotFound(siteId) : e;
      });
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      body = parseRawJson(req.headers["content-type"], raw);
    } else {
      const target = await siteOf(req);
      ({ session, body } = await signed(req, res, target));
      await consumeLimit(limiter, target.site.site_id, res);
    }
    const { items } = await timedSearch(
      parts.knowledge,
      { siteId, ...searchOf(body), signal: abortOnClientGone(res).signal },
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
    sendData(req, res, { items });
  });

  return router;
}
