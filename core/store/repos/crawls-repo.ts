/**
 * Crawls (migration 008): the queue and the record of every crawl of a site. A site has at most
 * one active (queued or running) crawl: queueing while one is there hands back that one. An
 * instance runs a crawl by taking its lease with a conditional UPDATE, so two instances never
 * run one crawl, and one killed mid-crawl only delays it until its lease runs out.
 */
import { newestFirst } from "../newest-first.ts";
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { newId } from "../ids.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";

export type CrawlTrigger = "created" | "domain_change" | "nightly" | "refresh";
export type CrawlStatus = "queued" | "running" | "done" | "failed";

export interface CrawlRow {
  id: string;
  site_id: string;
  trigger: CrawlTrigger;
  status: CrawlStatus;
  /** The site's id while queued or running, else null (unique: one active crawl a site). */
  active_site_id: string | null;
  domain: string | null;
  created_at: number;
  dispatched_at: number | null;
  started_at: number | null;
  finished_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  attempts: number;
  page_count: number;
  /** JSON array of CrawledPage, on a finished crawl. */
  pages: string | null;
  /** JSON array of CrawlError, on a finished crawl. */
  errors: string | null;
  /** Page URLs asked for (a 304 and a failure included). */
  pages_fetched: number;
  /** Pages that answered 304, or the same text as before. */
  pages_unchanged: number;
  /** Pages new, or whose text changed. */
  pages_changed: number;
  /** Pages stored before that this crawl found no more. */
  pages_removed: number;
}

/** What a crawl found of its pages' text, by page. */
export type CrawlCounts = Pick<
  CrawlRow,
  "pages_fetched" | "pages_unchanged" | "pages_changed" | "pages_removed"
>;

/** What a crawl's end writes. */
export interface CrawlOutcome extends Partial<CrawlCounts> {
  status: "done" | "failed";
  finished_at: number;
  page_count: number;
  pages: string;
  errors: string;
}

export interface CrawlCursor {
  created_at: number;
  id: string;
}

/** The columns of a crawl without its pages (a list never needs them). */
const SUMMARY_COLUMNS: string[] = [
  "id",
  "site_id",
  "trigger",
  "status",
  "active_site_id",
  "domain",
  "created_at",
  "dispatched_at",
  "started_at",
  "finished_at",
  "lease_owner",
  "lease_until",
  "attempts",
  "page_count",
  "errors",
  "pages_fetched",
  "pages_unchanged",
  "pages_changed",
  "pages_removed",
];

const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function crawlRow(raw: CrawlRow): CrawlRow {
  return {
    ...raw,
    pages: raw.pages ?? null,
    created_at: Number(raw.created_at),
    dispatched_at: num(raw.dispatched_at),
    started_at: num(raw.started_at),
    finished_at: num(raw.finished_at),
    lease_until: num(raw.lease_until),
    attempts: Number(raw.attempts),
    page_count: Number(raw.page_count),
    pages_fetched: Number(raw.pages_fetched ?? 0),
    pages_unchanged: Number(raw.pages_unchanged ?? 0),
    pages_changed: Number(raw.pages_changed ?? 0),
    pages_removed: Number(raw.pages_removed ?? 0),
  };
}

export class CrawlsRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * Queues `row` (queued, active) unless the site has an active crawl; the active crawl either
   * way, and whether it is `row`.
   */
  async queue(row: CrawlRow): Promise<{ crawl: CrawlRow; queued: boolean }> {
    await insertSkippingDuplicate(this.knex, "crawls", row, ["active_site_id"], this.client);
    const active = await this.active(row.site_id);
    // Finished between the insert and this read: the caller's crawl, whatever became of it.
    if (active === undefined) return { crawl: (await this.get(row.id)) ?? row, queued: true };
    return { crawl: active, queued: active.id === row.id };
  }

  async get(id: string): Promise<CrawlRow | undefined> {
    const raw = await this.knex<CrawlRow>("crawls").where({ id }).first();
    return raw === undefined ? undefined : crawlRow(raw);
  }

  /** The site's queued or running crawl. */
  async active(siteId: string): Promise<CrawlRow | undefined> {
    const raw = await this.knex("crawls")
      .select(SUMMARY_COLUMNS)
      .where({ active_site_id: siteId })
      .first();
    return raw === undefined ? undefined : crawlRow(raw as CrawlRow);
  }

  /** The site's latest crawl that finished `done`, pages included. */
  async latestDone(siteId: string): Promise<CrawlRow | undefined> {
    const raw = await this.knex<CrawlRow>("crawls")
      .where({ site_id: siteId, status: "done" })
      .orderBy([
        { column: "finished_at", order: "desc" },
        { column: "id", order: "desc" },
      ])
      .first();
    return raw === undefined ? undefined : crawlRow(raw);
  }

  /** Whether the site has any crawl at all, queued, running or finished. */
  async any(siteId: string): Promise<boolean> {
    return (await this.knex("crawls").where({ site_id: siteId }).first("id")) !== undefined;
  }

  /** The site's crawls, newest first, without their pages; `limit + 1` asked tells of a next. */
  async list(siteId: string, limit: number, after?: CrawlCursor): Promise<CrawlRow[]> {
    const query = this.knex("crawls").select(SUMMARY_COLUMNS).where({ site_id: siteId });
    const rows = await newestFirst(query, after).limit(limit);
    return (rows as CrawlRow[]).map(crawlRow);
  }

  /**
   * Crawls that need a job: queued ones no job was made for yet, or whose job has not started
   * them since `dispatchedBefore` (an instance that died holding the job's lock, which outlasts
   * any crawl), and running ones whose lease ran out (their instance died, and its job may be
   * gone); oldest first.
   */
  async undispatched(now: number, limit: number, dispatchedBefore: number): Promise<CrawlRow[]> {
    const rows = await this.knex("crawls")
      .select(SUMMARY_COLUMNS)
      .where((q) =>
        q
          .where({ status: "queued" })
          .andWhere((d) =>
            d.whereNull("dispatched_at").orWhere("dispatched_at", "<", dispatchedBefore),
          ),
      )
      .orWhere((q) => q.where({ status: "running" }).andWhere("lease_until", "<", now))
      .orderBy("created_at")
      .limit(limit);
    return (rows as CrawlRow[]).map(crawlRow);
  }

  /** Records that a job now runs the crawl (or, with null, that none does any more). */
  async markDispatched(id: string, at: number | null): Promise<void> {
    await this.knex("crawls").where({ id }).update({ dispatched_at: at });
  }

  /**
   * Takes the crawl for `owner` until `until`: a queued one, or a running one whose lease ran
   * out (its instance died). The crawl as taken, or undefined when another has it or it ended.
   */
  async claim(
    id: string,
    owner: string,
    now: number,
    until: number,
    domain: string,
  ): Promise<CrawlRow | undefined> {
    const taken = await this.knex("crawls")
      .where({ id })
      .andWhere((q) =>
        q
          .where({ status: "queued" })
          .orWhere((lapsed) =>
            lapsed.where({ status: "running" }).andWhere("lease_until", "<", now),
          ),
      )
      .update({
        status: "running",
        started_at: now,
        lease_owner: owner,
        lease_until: until,
        domain,
        attempts: this.knex.raw("attempts + 1"),
      });
    return taken === 1 ? this.get(id) : undefined;
  }

  /** Ends the crawl `owner` holds; false when its lease was lost (another instance took it). */
  async finish(id: string, owner: string, outcome: CrawlOutcome): Promise<boolean> {
    const updated = await this.knex("crawls")
      .where({ id, status: "running", lease_owner: owner })
      .update({ ...outcome, active_site_id: null, lease_owner: null, lease_until: null });
    return updated === 1;
  }

  /** Gives back a crawl this instance stopped before its end: queued again, for any instance. */
  async release(id: string, owner: string): Promise<void> {
    await this.knex("crawls").where({ id, status: "running", lease_owner: owner }).update({
      status: "queued",
      dispatched_at: null,
      lease_owner: null,
      lease_until: null,
    });
  }
}

/** A new queued crawl of `siteId`. */
export function newCrawlRow(siteId: string, trigger: CrawlTrigger, now: number): CrawlRow {
  return {
    id: newId("crawl"),
    site_id: siteId,
    trigger,
    status: "queued",
    active_site_id: siteId,
    domain: null,
    created_at: now,
    dispatched_at: null,
    started_at: null,
    finished_at: null,
    lease_owner: null,
    lease_until: null,
    attempts: 0,
    page_count: 0,
    pages: null,
    errors: null,
    pages_fetched: 0,
    pages_unchanged: 0,
    pages_changed: 0,
    pages_removed: 0,
  };
}
