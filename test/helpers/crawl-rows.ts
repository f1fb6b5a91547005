/**
 * Crawl rows written through the store's own crawl repository, as the crawl runner leaves them:
 * queued, or run to an end (done with its pages, or failed); or none at all, as for a site made
 * before crawls existed (a site made now has its first crawl queued with it).
 */
import type { CrawledPage, CrawlError } from "../../core/intelligence/crawler/crawl-types.ts";
import {
  newCrawlRow,
  type CrawlCounts,
  type CrawlRow,
} from "../../core/store/repos/crawls-repo.ts";
import type { Store } from "../../core/store/store.ts";

/** A queued crawl of the site (the one active crawl it may have). */
export async function queuedCrawl(
  store: Store,
  siteId: string,
  at = Date.now(),
): Promise<CrawlRow> {
  const { crawl } = await store.crawls.queue(newCrawlRow(siteId, "refresh", at));
  return crawl;
}

/**
 * A crawl of `domain` queued, claimed and finished `status` (done with `pages`, or failed), with
 * the `errors` it met and the `counts` of its pages' text (none unless given).
 */
export async function finishedCrawl(
  store: Store,
  siteId: string,
  options: {
    domain: string;
    pages?: CrawledPage[];
    errors?: CrawlError[];
    status?: "done" | "failed";
    at?: number;
    /** What it found of its pages' text (none by default). */
    counts?: Partial<CrawlCounts>;
  },
): Promise<CrawlRow> {
  const at = options.at ?? Date.now();
  const crawl = await queuedCrawl(store, siteId, at);
  const claimed = await store.crawls.claim(
    crawl.id,
    "test-runner",
    at,
    at + 60_000,
    options.domain,
  );
  if (claimed === undefined) throw new Error(`crawl ${crawl.id} of ${siteId} was not claimed`);
  const pages = options.pages ?? [];
  const ended = await store.crawls.finish(crawl.id, "test-runner", {
    status: options.status ?? "done",
    finished_at: at,
    page_count: pages.length,
    pages: JSON.stringify(pages),
    errors: JSON.stringify(options.errors ?? []),
    ...options.counts,
  });
  if (!ended) throw new Error(`crawl ${crawl.id} of ${siteId} did not finish`);
  return (await store.crawls.get(crawl.id))!;
}

/** Removes every crawl of the site: a site made before crawls existed. */
export async function forgetCrawls(store: Store, siteId: string): Promise<void> {
  await store.db.knex("crawls").where({ site_id: siteId }).delete();
}
