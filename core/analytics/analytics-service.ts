/**
 * The analytics reads of a workspace key (`analytics:read`): a site's usage events, newest first,
 * a page at a time. Another workspace's site is 404 `site_not_found`, as an unknown one is; a
 * site a per-site key is not for is 403, as everywhere (core/sites/site-access.ts).
 */
import type { Principal } from "../auth/principal.ts";
import { errors, isServiceError } from "../errors.ts";
import {
  USAGE_EVENT_TYPES,
  usageEvent,
  type UsageEvent,
  type UsageEventType,
} from "../events/event-bus.ts";
import type { Store } from "../store/store.ts";
import type { SiteService } from "../sites/site-service.ts";
import { workspaceUsage, type UsageGroup } from "../store/repos/usage-rollups.ts";
import { keysetPage, type KeysetPage } from "../util/keyset-page.ts";
import { bucketsOf, type Bucket, type Window } from "./summary-buckets.ts";

/** Where a page of events ends: the last event's time and id. */
export interface EventCursor {
  created_at: number;
  id: string;
}

/**
 * The cursor a client gets: where the page ended and the window it was read over, so the next
 * pages read the same window (`until` defaults to now, which moves) and skip nothing.
 */
export interface EventPageCursor extends EventCursor {
  since: number;
  until: number;
  type?: UsageEventType;
}

export interface EventQuery {
  since: number;
  until: number;
  type?: UsageEventType;
  limit: number;
  before?: EventCursor;
}

export class AnalyticsService {
  constructor(private readonly parts: { store: Store; sites: SiteService }) {}

  async events(
    principal: Principal,
    siteId: string,
    query: EventQuery,
  ): Promise<KeysetPage<UsageEvent, EventCursor>> {
    await this.siteOf(principal, siteId);
    const rows = await this.parts.store.events.pageUsage(siteId, {
      ...query,
      limit: query.limit + 1,
    });
    return keysetPage(rows, query.limit, usageEvent, (last) => ({
      created_at: Number(last.created_at),
      id: last.id,
    }));
  }

  /**
   * Totals, buckets (empty ones with zeros) and the top functions of the window, from the
   * rollups alone, in the site's time zone.
   */
  async summary(
    principal: Principal,
    siteId: string,
    query: { window: Window; bucket: Bucket },
  ): Promise<Summary> {
    const site = await this.siteOf(principal, siteId);
    const { since, until } = query.window;
    const { labels, ofQuarter } = bucketsOf(query.window, query.bucket, site.timezone);
    const sums = new Map(labels.map((label) => [label, new Tally()]));
    const total = new Tally();
    for (const row of await this.parts.store.rollups.sums(siteId, since, until)) {
      sums.get(ofQuarter.get(row.bucket_start) ?? "")?.add(row);
      total.add(row);
    }
    return {
      period: { since: new Date(since).toISOString(), until: new Date(until).toISOString() },
      timezone: site.timezone,
      totals: total.view(),
      buckets: labels.map((label) => ({ bucket: label, ...sums.get(label)!.view() })),
      top_functions: await this.parts.store.rollups.topFunctions(siteId, since, until, 10),
    };
  }

  /**
   * Minutes, sessions and events of the workspace's sites (a per-site key's only) in the window,
   * grouped by site, UTC day and/or type, from the rollups.
   */
  async usage(
    principal: Principal,
    query: { window: Window; groupBy: readonly UsageGroup[] },
  ): Promise<Array<Record<string, string | number>>> {
    const rows = await workspaceUsage(this.parts.store.db.knex, {
      workspaceId: principal.workspaceId,
      siteIds: principal.siteIds === undefined ? undefined : [...principal.siteIds],
      ...query.window,
      groupBy: query.groupBy,
    });
    return rows.map((row) => ({
      ...(row.site_id === undefined ? {} : { site_id: String(row.site_id) }),
      ...(row.day === undefined
        ? {}
        : { day: new Date(Number(row.day)).toISOString().slice(0, 10) }),
      ...(row.type === undefined ? {} : { type: String(row.type) }),
      minutes: Math.round((Number(row.seconds) / 60) * 100) / 100,
      sessions: Number(row.sessions),
      events: Number(row.events),
    }));
  }

  /** 404 site_not_found for a site the principal may not read (not_found from the access rule). */
  private async siteOf(principal: Principal, siteId: string) {
    try {
      return await this.parts.sites.get(principal, siteId);
    } catch (error) {
      if (isServiceError(error) && error.code === "not_found") throw errors.siteNotFound(siteId);
      throw error;
    }
  }
}

export interface SummaryFigures {
  sessions: number;
  minutes: number;
  function_calls: number;
  db_queries: number;
  /** Absent until some event of the span has a cost (a cost is filled in after the fact). */
  cost_cents?: number;
}

export interface Summary {
  period: { since: string; until: string };
  timezone: string;
  totals: SummaryFigures;
  buckets: Array<SummaryFigures & { bucket: string }>;
  top_functions: Array<{ name: string; count: number }>;
}

/** The figures of a span, summed from rollup rows. */
class Tally {
  #sessions = 0;
  #seconds = 0;
  #functionCalls = 0;
  #dbQueries = 0;
  #cost = 0;
  #costed = 0;

  add(row: {
    type: string;
    events: number;
    duration_seconds: number;
    cost_cents: number;
    costed: number;
  }): void {
    if (row.type === "session_start") this.#sessions += row.events;
    if (row.type === "session_end") this.#seconds += row.duration_seconds;
    if (row.type === "function_call") this.#functionCalls += row.events;
    if (row.type === "db_query") this.#dbQueries += row.events;
    this.#cost += row.cost_cents;
    this.#costed += row.costed;
  }

  view(): SummaryFigures {
    return {
      sessions: this.#sessions,
      minutes: Math.round((this.#seconds / 60) * 100) / 100,
      function_calls: this.#functionCalls,
      db_queries: this.#dbQueries,
      ...(this.#costed === 0 ? {} : { cost_cents: Math.round(this.#cost * 100) / 100 }),
    };
  }
}

export const isEventPageCursor = (value: unknown): value is EventPageCursor => {
  if (typeof value !== "object" || value === null) return false;
  const cursor = value as EventPageCursor;
  return (
    Number.isSafeInteger(cursor.created_at) &&
    Number.isSafeInteger(cursor.since) &&
    Number.isSafeInteger(cursor.until) &&
    typeof cursor.id === "string" &&
    cursor.id.length <= 40 &&
    (cursor.type === undefined || (USAGE_EVENT_TYPES as readonly string[]).includes(cursor.type))
  );
};
