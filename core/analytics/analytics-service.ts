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
import { keysetPage, type KeysetPage } from "../util/keyset-page.ts";

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

  /** 404 site_not_found for a site the principal may not read (not_found from the access rule). */
  private async siteOf(principal: Principal, siteId: string): Promise<void> {
    try {
      await this.parts.sites.assertOwned(principal, siteId);
    } catch (error) {
      if (isServiceError(error) && error.code === "not_found") throw errors.siteNotFound(siteId);
      throw error;
    }
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
