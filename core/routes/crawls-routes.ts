/**
 * A site's crawls, under `/v1/sites/:id`: `POST refresh` (sites:write) queues a crawl, or answers
 * the one queued or running, 202 either way (20 an hour a site); `GET crawls` (sites:read) lists them, newest first,
 * with a cursor.
 */
import { Router } from "express";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { sendData } from "../http/envelope.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import { consumeLimit } from "../http/rate-limit-headers.ts";
import type { RateLimiterFactory } from "../limits/rate-limiter.ts";
import type { CrawlService } from "../intelligence/crawl-service.ts";
import { isNewestKey } from "../store/newest-first.ts";

/**
 * Refreshes a site asks for: each may start a crawl of up to the page cap, so a key cannot turn
 * the crawler on a site (its own or a third party's) without pause.
 */
export const REFRESH_LIMIT = { name: "crawl-refresh", points: 20, durationSeconds: 3600 };

export function crawlsRoutes(
  crawls: CrawlService,
  limiters: RateLimiterFactory,
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();
  const refreshes = limiters(REFRESH_LIMIT);

  router.post("/:id/refresh", requireKey("sites:write"), async (req, res) => {
    queryParams(req, []);
    const siteId = req.params.id as string;
    const answer = await crawls.refresh(principalOf(req), siteId, () =>
      consumeLimit(refreshes, siteId, res),
    );
    sendData(req, res, answer, { status: 202 });
  });

  router.get("/:id/crawls", requireKey("sites:read"), async (req, res) => {
    const query = queryParams(req, ["limit", "cursor"]);
    const page = await crawls.list(principalOf(req), req.params.id as string, {
      limit: parseLimit(query.limit),
      after: decodeCursor(query.cursor, isNewestKey),
    });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  return router;
}
