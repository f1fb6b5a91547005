/**
 * The analytics reads (`analytics:read`), refusing bad parameters with 400 `invalid_params`
 * naming them (the API reference's analytics rows). `GET /v1/:siteId/analytics/events`: `since` (30 days
 * ago), `until` (now), `type`, `limit` (100, at most 1,000) and the opaque `cursor` of
 * `meta.next_cursor`, which carries the window of the first page so the pages after it read the
 * same one. `GET /v1/:siteId/analytics/summary`: `period` (month), `bucket` (day), and `since`
 * and `until` with `period=custom` only. `GET /v1/analytics`: `from` (the first of this month,
 * UTC), `to` (now) and `group_by` (site_id; any of site_id, day and type), over the workspace's
 * sites (a per-site key's only).
 */
import { Router } from "express";
import { parseEventType, parseInstant } from "../analytics/analytics-params.ts";
import {
  isEventPageCursor,
  type AnalyticsService,
  type EventPageCursor,
} from "../analytics/analytics-service.ts";
import {
  BUCKETS,
  MAX_WINDOW_MS,
  PERIODS,
  summaryWindow,
  type Period,
  type Window,
} from "../analytics/summary-buckets.ts";
import { errors } from "../errors.ts";
import type { UsageGroup } from "../store/repos/usage-rollups.ts";
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

  router.get("/v1/:siteId/analytics/summary", requireKey("analytics:read"), async (req, res) => {
    const query = queryParams(req, SUMMARY_PARAMS, errors.invalidParams);
    const period = oneOf(query.period ?? "month", PERIODS, "period");
    const bucket = oneOf(query.bucket ?? "day", BUCKETS, "bucket");
    const window = summaryWindow(period, now(), customWindow(period, query));
    const summary = await analytics.summary(principalOf(req), req.params.siteId as string, {
      window,
      bucket,
    });
    sendData(req, res, summary);
  });

  router.get("/v1/analytics", requireKey("analytics:read"), async (req, res) => {
    const query = queryParams(req, ["from", "to", "group_by"], errors.invalidParams);
    const at = now();
    const monthStart = new Date(at);
    const since =
      query.from === undefined
        ? Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth(), 1)
        : parseInstant(query.from, "from");
    const until = query.to === undefined ? at : parseInstant(query.to, "to");
    if (since >= until) throw errors.invalidParams("from must be before to", { field: "from" });
    if (until - since > MAX_WINDOW_MS) {
      throw errors.invalidParams("from and to are at most 366 days apart", { field: "to" });
    }
    const rows = await analytics.usage(principalOf(req), {
      window: summaryWindow("custom", at, { since, until }),
      groupBy: groupsOf(query.group_by ?? "site_id"),
    });
    sendData(req, res, rows);
  });

  return router;
}

const GROUPS = ["site_id", "day", "type"] as const;

/** `group_by`: one or more of site_id, day and type, comma-separated, each once. */
function groupsOf(raw: string): UsageGroup[] {
  const groups = raw.split(",").map((group) => group.trim());
  for (const group of groups) oneOf(group, GROUPS, "group_by");
  if (new Set(groups).size !== groups.length) {
    throw errors.invalidParams("group_by names a group twice", { field: "group_by" });
  }
  return groups as UsageGroup[];
}

const SUMMARY_PARAMS = ["period", "bucket", "since", "until"] as const;

function oneOf<const T extends string>(raw: string, values: readonly T[], field: string): T {
  if (!(values as readonly string[]).includes(raw)) {
    throw errors.invalidParams(`${field} must be one of ${values.join(", ")}, got "${raw}"`, {
      field,
    });
  }
  return raw as T;
}

/** `since` and `until` of a custom period: both required, in order, a year and a day at most. */
function customWindow(
  period: Period,
  query: Partial<Record<(typeof SUMMARY_PARAMS)[number], string>>,
): Window | undefined {
  if (period !== "custom") {
    for (const field of ["since", "until"] as const) {
      if (query[field] !== undefined) {
        throw errors.invalidParams(`${field} is taken only with period=custom`, { field });
      }
    }
    return undefined;
  }
  for (const field of ["since", "until"] as const) {
    if (query[field] === undefined) {
      throw errors.invalidParams(`period=custom needs ${field}`, { field });
    }
  }
  const since = parseInstant(query.since!, "since");
  const until = parseInstant(query.until!, "until");
  if (since >= until) throw errors.invalidParams("since must be before until", { field: "since" });
  if (until - since > MAX_WINDOW_MS) {
    throw errors.invalidParams("a custom period spans at most 366 days", { field: "until" });
  }
  return { since, until };
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
