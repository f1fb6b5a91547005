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
import { minutesOf } from "./minutes-of.ts";
import { ClosedDays } from "./closed-days.ts";
import { bucketIndex, bucketsOf, type Bucket, type Window } from "./summary-buckets.ts";

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
  private readonly closedDays: ClosedDays;

  constructor(private readonly parts: { store: Store; sites: SiteService; now?: () => number }) {
    this.closedDays = new ClosedDays(parts.store, parts.now ?? Date.now);
  }

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
   * rollups alone, in the site's time zone: its closed whole local days from the day rollups
   * (written from the quarter hours the first time they are needed), the rest from the quarter
   * hours, so a year costs a few hundred rows, not thirty-five thousand quarter hours' worth.
   */
  async summary(
    principal: Principal,
    siteId: string,
    query: { window: Window; bucket: Bucket },
  ): Promise<Summary> {
    const site = await this.siteOf(principal, siteId);
    const { since, until } = query.window;
    const { labels, starts, days } = bucketsOf(query.window, query.bucket, site.timezone);
    const rows =
      query.bucket === "hour"
        ? await this.parts.store.rollups.rows(siteId, since, until)
        : await this.closedDays.rowsOf(siteId, site.timezone, query.window, days);
    const sums = labels.map(() => new Tally());
    const total = new Tally();
    const calls = new Map<string, number>();
    for (const row of rows) {
      sums[bucketIndex(starts, row.bucket_start)]?.add(row);
      total.add(row);
      if (row.type === "function_call") {
        calls.set(row.function_name, (calls.get(row.function_name) ?? 0) + row.events);
      }
    }
    return {
      period: { since: new Date(since).toISOString(), until: new Date(until).toISOString() },
      timezone: site.timezone,
      totals: total.view(),
      buckets: labels.map((label, i) => ({ bucket: label, ...sums[i]!.view() })),
      top_functions: [...calls]
        .map(([name, count]) => ({ name, count }))
        .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, TOP_FUNCTIONS),
    };
  }

  /**
   * Keeps the site's closed local days of the last year in `zone` as day rows (the hourly
   * `analytics.day-rollups` job); how many days it wrote.
   */
  keepClosedDays(siteId: string, zone: string): Promise<number> {
    return this.closedDays.keepYear(siteId, zone);
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
      minutes: minutesOf(Number(row.seconds)),
      sessions: Number(row.sessions),
      events: Number(row.events),
    }));
  }

  /** Resolves when `principal` may read `siteId`'s analytics: 404 `site_not_found`, 403. */
  async checkAccess(principal: Principal, siteId: string): Promise<void> {
    await this.siteOf(principal, siteId);
  }

  private async siteOf(principal: Principal, siteId: string) {
    try {
      return await this.parts.sites.get(principal, siteId);
    } catch (error) {
      if (isServiceError(error) && error.code === "not_found") throw errors.siteNotFound(siteId);
      throw error;
    }
  }
}

/** The functions a summary lists, most called first. */
const TOP_FUNCTIONS = 10;
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
      minutes: minutesOf(this.#seconds),
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
