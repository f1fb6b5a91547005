/**
 * The crawls of sites: queued (a site's creation or domain change, the nightly job, a refresh),
 * run by one instance as an Agenda job, recorded with their pages, errors and duration.
 *
 * The crawls table is the queue (migration 008): a site has at most one queued or running crawl,
 * so a refresh while one is there answers that one. Queueing makes the job at once when this
 * instance has the job runner; a crawl queued elsewhere (a CLI sync creating a site), given back
 * at a shutdown, or left running by an instance that died (its lease ran out) gets its job from
 * the dispatch job, which every instance with jobs runs in turn. Two jobs for one crawl are
 * harmless: the first to take its lease runs it, the other finds it taken.
 */
import crypto from "node:crypto";
import os from "node:os";
import type { Logger } from "pino";
import type { Principal } from "../auth/principal.ts";
import type { Jobs } from "../jobs/jobs.ts";
import type { GuardedRequest } from "../security/guarded-request.ts";
import type { Settings } from "../settings.ts";
import type { SiteService } from "../sites/site-service.ts";
import type {
  CrawlCursor,
  CrawlOutcome,
  CrawlRow,
  CrawlTrigger,
} from "../store/repos/crawls-repo.ts";
import { newCrawlRow } from "../store/repos/crawls-repo.ts";
import type { Store } from "../store/store.ts";
import { NIGHTLY_CRAWL_JOB, planNightlyCrawls } from "./crawl-nightly.ts";
import { recordCrawlEnd } from "./crawl-end.ts";
import { failure, outcomeOf } from "./crawl-outcome.ts";
import { crawlView, type CrawlView } from "./crawl-view.ts";
import { crawlSite } from "./crawler/index.ts";
import { crawlerUserAgent } from "./crawler/user-agent.ts";
import type { CrawlKnowledge, KnowledgeUpdate } from "./knowledge/crawl-knowledge.ts";

/** The job that runs one crawl (crawl-jobs.ts). */
export const CRAWL_RUN_JOB = "crawls.run";
/** How long a crawl may take before it is stopped and recorded as failed. */
export const CRAWL_TIMEOUT_MS = 20 * 60_000;
/** How long an instance holds a crawl: past its timeout, so a live crawl is never taken over. */
export const CRAWL_LEASE_MS = 30 * 60_000;

/**
 * How long a dispatched crawl may stay queued before it is dispatched again: its job's instance
 * may have died holding the job's lock (as long as the lease), before starting it. A second job
 * for a crawl already started does nothing (the claim refuses it).
 */
export const CRAWL_UNSTARTED_MS = 60_000;

/** What of the job runner crawls use. */
export type CrawlJobs = Pick<Jobs, "now" | "repeatFor" | "repeating" | "cancelFor">;

/** What the crawls tell site intelligence. */
export interface CrawlListener {
  /** A crawl of the site ended (done or failed): its pages may have changed. */
  crawled(siteId: string): Promise<void>;
  /** A refresh was asked for: what is cached of the site is stale. */
  invalidate(siteId: string): Promise<void>;
}

export interface CrawlServiceParts {
  store: Store;
  sites: SiteService;
  /** The guarded request (the SSRF guard) every request of a crawl goes through. */
  request: GuardedRequest;
  settings: Pick<Readonly<Settings>, "crawler">;
  logger: Logger;
  intelligence: CrawlListener;
  /** The site's knowledge: what the crawl asks for conditionally, and stores at its end. */
  knowledge: CrawlKnowledge;
  now?: () => number;
  /** This instance's name on the crawls it runs (default `host:pid`). */
  instanceName?: string;
}

export class CrawlService {
  private jobs: CrawlJobs | undefined;
  private readonly running = new Map<string, AbortController>();
  private stopped = false;
  private dispatching: Promise<void> | undefined;
  private dispatchAgain = false;
  private readonly now: () => number;
  private readonly owner: string;
  private readonly userAgent: string;

  constructor(private readonly parts: CrawlServiceParts) {
    this.now = parts.now ?? Date.now;
    const name = parts.instanceName ?? `${os.hostname()}:${process.pid}`;
    this.owner = `${name}:${crypto.randomBytes(4).toString("hex")}`;
    this.userAgent = crawlerUserAgent(parts.settings.crawler.contactUrl);
  }

  /** The job runner crawls are queued on; until attached, the dispatch job makes their jobs. */
  attach(jobs: CrawlJobs): void {
    this.jobs = jobs;
  }

  /** The nightly job's work: a crawl of the site, or, for a site deleted since, no more job. */
  async nightly(siteId: string): Promise<void> {
    if ((await this.parts.store.sites.get(siteId)) !== undefined) {
      await this.queue(siteId, "nightly");
    } else {
      await this.jobs?.cancelFor(NIGHTLY_CRAWL_JOB, siteId);
    }
  }

  /** The planning job's work (crawl-nightly.ts). */
  async planNightly(): Promise<void> {
    if (this.jobs !== undefined)
      await planNightlyCrawls(this.parts.store, this.jobs, this.parts.logger);
  }

  /** Queues a crawl of the site, or finds the one queued or running; that crawl. */
  async queue(siteId: string, trigger: CrawlTrigger): Promise<CrawlRow> {
    const { crawl, queued } = await this.parts.store.crawls.queue(
      newCrawlRow(siteId, trigger, this.now()),
    );
    if (queued) await this.dispatchOne(crawl);
    return crawl;
  }

  /**
   * `POST /v1/sites/:id/refresh`: the crawl queued (or already under way) for the site.
   * `admit` runs once the site is known to be the principal's (the route's rate limit).
   */
  async refresh(
    principal: Principal,
    siteId: string,
    admit: () => Promise<void> = async () => {},
  ): Promise<{ crawl_id: string; status: string }> {
    await this.parts.sites.assertOwned(principal, siteId);
    await admit();
    const crawl = await this.queue(siteId, "refresh");
    await this.parts.intelligence.invalidate(siteId);
    return { crawl_id: crawl.id, status: crawl.status };
  }

  /** `GET /v1/sites/:id/crawls`: the site's crawls, newest first, a page at a time. */
  async list(
    principal: Principal,
    siteId: string,
    page: { limit: number; after?: CrawlCursor },
  ): Promise<{ items: CrawlView[]; next?: CrawlCursor }> {
    await this.parts.sites.assertOwned(principal, siteId);
    const rows = await this.parts.store.crawls.list(siteId, page.limit + 1, page.after);
    const items = rows.slice(0, page.limit);
    const last = items.at(-1);
    return {
      items: items.map(crawlView),
      next:
        rows.length > page.limit && last !== undefined
          ? { created_at: last.created_at, id: last.id }
          : undefined,
    };
  }

  /** Makes a job for each crawl that needs one (see the header); how many. */
  async dispatch(limit = 100): Promise<number> {
    const now = this.now();
    const due = await this.parts.store.crawls.undispatched(now, limit, now - CRAWL_UNSTARTED_MS);
    for (const crawl of due) await this.dispatchOne(crawl);
    return this.jobs === undefined ? 0 : due.length;
  }

  /**
   * A dispatch soon (a site changed: a crawl may have been queued with it, on any instance):
   * one at a time, and one more after it when woken meanwhile.
   */
  wake(): void {
    if (this.jobs === undefined || this.stopped) return;
    if (this.dispatching !== undefined) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatching = this.dispatch()
      .then(() => undefined)
      .catch((err: unknown) => this.parts.logger.warn({ err }, "crawls not dispatched"))
      .finally(() => {
        this.dispatching = undefined;
        if (this.dispatchAgain) {
          this.dispatchAgain = false;
          this.wake();
        }
      });
  }

  private async dispatchOne(crawl: CrawlRow): Promise<void> {
    if (this.jobs === undefined) return;
    try {
      await this.jobs.now(CRAWL_RUN_JOB, { crawl_id: crawl.id });
      await this.parts.store.crawls.markDispatched(crawl.id, this.now());
    } catch (err) {
      // The dispatch job tries again.
      this.parts.logger.warn({ err, crawl_id: crawl.id }, "crawl not dispatched");
    }
  }

  /**
   * Runs the crawl (the job's work) unless another instance has it or it ended; the crawl as
   * it ended, or undefined when this instance did not run it to its end.
   */
  async run(crawlId: string): Promise<CrawlRow | undefined> {
    const { store, sites, logger } = this.parts;
    if (this.stopped) return undefined; // given to another instance by the dispatch job
    const queued = await store.crawls.get(crawlId);
    if (queued === undefined) return undefined; // its site was deleted
    const target = await sites.publicSite(queued.site_id);
    if (target === undefined) return undefined;
    const { site } = target;
    const started = this.now();
    const claimed = await store.crawls.claim(
      crawlId,
      this.owner,
      started,
      started + CRAWL_LEASE_MS,
      site.domain,
    );
    if (claimed === undefined) return undefined;

    const stop = new AbortController();
    this.running.set(crawlId, stop);
    let outcome: CrawlOutcome;
    let update: KnowledgeUpdate | undefined;
    try {
      const stored = await this.parts.knowledge.stored(site.site_id);
      const result = await crawlSite(site, {
        request: this.parts.request,
        userAgent: this.userAgent,
        maxPages: this.parts.settings.crawler.maxPages,
        logger,
        signal: AbortSignal.any([stop.signal, AbortSignal.timeout(CRAWL_TIMEOUT_MS)]),
        known: stored.known,
      });
      outcome = outcomeOf(result, this.now());
      update = await this.parts.knowledge.prepare(
        site,
        { id: crawlId, done: outcome.status === "done", signal: stop.signal },
        result,
        stored,
      );
    } catch (error) {
      if (stop.signal.aborted) {
        await store.crawls.release(crawlId, this.owner);
        logger.info({ crawl_id: crawlId, site_id: site.site_id }, "crawl given back at stop");
        return undefined;
      }
      outcome = failure(error, this.now(), CRAWL_TIMEOUT_MS);
    } finally {
      this.running.delete(crawlId);
    }
    const written = await recordCrawlEnd(
      { store, logger },
      { crawlId, siteId: site.site_id, owner: this.owner, outcome, update },
    );
    if (written === undefined) return undefined;
    const { ended } = written;
    update = written.update;
    update?.committed();
    logger.info(
      {
        crawl_id: crawlId,
        site_id: site.site_id,
        status: outcome.status,
        pages: outcome.page_count,
        errors: (JSON.parse(outcome.errors) as unknown[]).length,
        ...update?.counts,
        duration_ms: outcome.finished_at - started,
      },
      "crawl finished",
    );
    await this.afterCrawl(site.site_id, site.domain);
    return ended;
  }

  /** Site intelligence learns of the new pages; a domain changed meanwhile is crawled anew. */
  private async afterCrawl(siteId: string, domain: string): Promise<void> {
    try {
      await this.parts.intelligence.crawled(siteId);
    } catch (err) {
      this.parts.logger.warn({ err, site_id: siteId }, "site intelligence not regenerated");
    }
    const now = await this.parts.sites.publicSite(siteId);
    if (now !== undefined && now.site.domain !== domain) await this.queue(siteId, "domain_change");
  }

  /**
   * Stops the crawls under way: each is given back (queued again, for any instance). Called
   * before the job runner stops, so its wait for running jobs is short.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const stop of this.running.values()) stop.abort(new Error("the service is stopping"));
    await this.dispatching;
  }
}
