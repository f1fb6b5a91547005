/** What a crawl's end writes of it: its status, its pages and the first of its errors. */
import type { CrawlOutcome } from "../store/repos/crawls-repo.ts";
import { messageOf } from "../util/message-of.ts";
import type { CrawlResult } from "./crawler/index.ts";

/** The errors a crawl keeps (the first ones): enough to see what is wrong, bounded in size. */
export const CRAWL_ERRORS_KEPT = 100;

/**
 * A crawl's result as stored: failed when it found no page and met an error (the site did not
 * answer, robots.txt could not be read), done otherwise, a robots.txt that allows nothing
 * included.
 */
export function outcomeOf(result: CrawlResult, now: number): CrawlOutcome {
  const failed = result.pages.length === 0 && result.errors.length > 0;
  return {
    status: failed ? "failed" : "done",
    finished_at: now,
    page_count: result.pages.length,
    pages: JSON.stringify(result.pages),
    errors: JSON.stringify(result.errors.slice(0, CRAWL_ERRORS_KEPT)),
  };
}

/** A crawl that threw (its timeout, a failure of the crawler itself). */
export function failure(error: unknown, now: number, timeoutMs: number): CrawlOutcome {
  const timedOut = error instanceof DOMException && error.name === "TimeoutError";
  const reason = timedOut
    ? `the crawl took longer than ${timeoutMs / 60_000} minutes`
    : messageOf(error);
  return {
    status: "failed",
    finished_at: now,
    page_count: 0,
    pages: "[]",
    errors: JSON.stringify([{ url: "", reason }]),
  };
}
