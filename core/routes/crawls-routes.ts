/**
 * A site's crawls, under `/v1/sites/:id`: `POST refresh` (sites:write) queues a crawl, or answers
 * the one queued or running, 202 either way; `GET crawls` (sites:read) lists them, newest first,
 * with a cursor.
 */
import { Router } from "express";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { sendData } from "../http/envelope.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import type { CrawlService } from "../intelligence/crawl-service.ts";
import type { CrawlCursor } from "../store/repos/crawls-repo.ts";

const isCrawlCursor = (value: unknown): value is CrawlCursor =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as CrawlCursor).created_at === "number" &&
  typeof (value as CrawlCursor).id === "string";

export function crawlsRoutes(
  crawls: CrawlService,
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();

  router.post("/:id/refresh", requireKey("sites:write"), async (req, res) => {
    queryParams(req, []);
    const answer = await crawls.refresh(principalOf(req), req.params.id as string);
    sendData(req, res, answer, { status: 202 });
  });

  router.get("/:id/crawls", requireKey("sites:read"), async (req, res) => {
    const query = queryParams(req, ["limit", "cursor"]);
    const page = await crawls.list(principalOf(req), req.params.id as string, {
      limit: parseLimit(query.limit),
      after: decodeCursor(query.cursor, isCrawlCursor),
    });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  return router;
}
