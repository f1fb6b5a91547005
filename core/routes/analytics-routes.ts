/**
 * The analytics reads (`analytics:read`), refusing bad parameters with 400 `invalid_params`
 * naming them (SPEC.md's analytics rows). `GET /v1/:siteId/analytics/events`: `since` (30 days
 * ago), `until` (now), `type`, `limit` (100, at most 1,000) and the opaque `cursor` of
 * `meta.next_cursor`, which carries the window of the first page so the pages after it read the
 * same one.
 */
import { Router } from "express";
import { parseEventType, parseInstant } from "../analytics/analytics-params.ts";
import {
  isEventPageCursor,
  type AnalyticsService,
  type EventPageCursor,
} from "../analytics/analytics-service.ts";
import { errors } from "../errors.ts";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { sendData } from "../http/envelope.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";

const DAY_MS = 24 * 60 * 60_000;
const EVENT_PARAMS = ["since", "until", "type", "limit", "cursor"] as const;

export function analyticsRoutes(
  analytics: AnalyticsService,
  requireKey: ReturnType<typeof apiKeyAuth>,
  now: () => number = Date.now,
): Router {
  const router = Router();

  router.get("/v1/:siteId/analytics/events", requireKey("analytics:read"), async (req, res) => {
    const query = queryParams(req, EVENT_PARAMS, errors.invalidParams);
    const limit = parseLimit(query.limit, {
      fallback: 100,
      max: 1000,
      invalid: errors.invalidParams,
    });
    const cursor = decodeCursor(query.cursor, isEventPageCursor, errors.invalidParams);
    const window = eventWindow(query, cursor, now());
    const page = await analytics.events(principalOf(req), req.params.siteId as string, {
      ...window,
      limit,
      before: cursor,
    });
    const next: EventPageCursor | undefined =
      page.next === undefined ? undefined : { ...page.next, ...window };
    sendData(req, res, page.items, {
      meta: { next_cursor: next === undefined ? null : encodeCursor(next) },
    });
  });

  return router;
}

/** The window read: the cursor's own, which parameters given beside it must agree with. */
function eventWindow(
  query: Partial<Record<(typeof EVENT_PARAMS)[number], string>>,
  cursor: EventPageCursor | undefined,
  at: number,
): Pick<EventPageCursor, "since" | "until" | "type"> {
  const since = query.since === undefined ? undefined : parseInstant(query.since, "since");
  const until = query.until === undefined ? undefined : parseInstant(query.until, "until");
  const type = query.type === undefined ? undefined : parseEventType(query.type);
  if (cursor !== undefined) {
    for (const [field, given] of Object.entries({ since, until, type })) {
      if (given !== undefined && given !== cursor[field as "since" | "until" | "type"]) {
        throw errors.invalidParams(
          `${field} differs from the query the cursor was issued for; leave it out or start over`,
          { field },
        );
      }
    }
    return { since: cursor.since, until: cursor.until, type: cursor.type };
  }
  const window = { since: since ?? at - 30 * DAY_MS, until: until ?? at, type };
  if (window.since >= window.until) {
    throw errors.invalidParams("since must be before until", { field: "since" });
  }
  return window;
}
