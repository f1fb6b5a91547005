/**
 * Crawls one site for the assistant's knowledge of it: its pages' titles, descriptions, section
 * ids and main text (asked for conditionally when an earlier crawl kept the page: a 304 gives
 * the page as kept). Polite (robots.txt for our user agent, its Crawl-delay, a few requests at
 * once) and contained: every request goes through the guarded request (the SSRF guard), stays
 * on the site's origin (sitemap entries and redirects elsewhere are never fetched) and is
 * bounded in time, size and number. The pages come from the site's sitemaps; without one (or
 * with an empty one), from the links of `/`, breadth first. Pure: what it knew and what it found
 * are the caller's to store (crawl-service.ts).
 */
import { setTimeout as wait } from "node:timers/promises";
import { pino } from "pino";
import robotsParserModule from "robots-parser";
import { ResponseTooLargeError } from "../../security/guarded-request.ts";
import { outboundRefusal } from "../../security/outbound-policy.ts";
import { pagePatternTest } from "../../sites/page-patterns.ts";
import { messageWithCause } from "../../util/message-of.ts";
import { readPages } from "./crawl-pages.ts";
import type {
  CrawlContext,
  CrawlError,
  CrawledPage,
  CrawlOptions,
  CrawlResult,
  CrawlSite,
  PageText,
} from "./crawl-types.ts";
import { pageUrl, siteOrigin } from "./crawl-urls.ts";
import { CrawlFetchError, originFetch } from "./origin-fetch.ts";
import { sitemapPages } from "./sitemaps.ts";

// robots-parser is CommonJS (`module.exports = function`) typed as an ES module's default export:
// Node hands the function itself as the default import, TypeScript expects it under `.default`.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export const CRAWL_DEFAULTS = {
  maxPages: 500,
  maxDepth: 5,
  perHost: 3,
  timeoutMs: 10_000,
  maxBytes: 2 * 1024 * 1024,
} as const;

/** A Crawl-delay longer than this is waited as this: a crawl must end. */
export const MAX_CRAWL_DELAY_MS = 30_000;

/** Crawls `site`: see the header comment and crawl-types.ts. */
export async function crawlSite(site: CrawlSite, options: CrawlOptions): Promise<CrawlResult> {
  const startedAt = Date.now();
  const origin = siteOrigin(site.domain);
  const maxPages = options.maxPages ?? CRAWL_DEFAULTS.maxPages;
  const maxDepth = options.maxDepth ?? CRAWL_DEFAULTS.maxDepth;
  const logger = (options.logger ?? pino({ level: "silent" })).child({ crawl: origin });
  const sleep = options.sleep ?? ((ms, signal) => wait(ms, undefined, { signal }));
  const errors: CrawlError[] = [];
  const unreachable: string[] = [];
  let fetched = 0;
  let pagesAsked = 0;
  let delayMs = 0;
  let turn: Promise<void> | undefined;

  const crawl: CrawlContext = {
    origin,
    userAgent: options.userAgent,
    maxBytes: options.maxBytes ?? CRAWL_DEFAULTS.maxBytes,
    logger,
    get: (url, mayFollow) =>
      originFetch(url, {
        request: options.request,
        origin,
        userAgent: options.userAgent,
        timeoutMs: options.timeoutMs ?? CRAWL_DEFAULTS.timeoutMs,
        maxBytes: crawl.maxBytes,
        signal: options.signal,
        mayFollow,
        // Every request after robots.txt waits its turn: the Crawl-delay after the one before.
        beforeRequest: () => {
          const previous = turn;
          turn = (async () => {
            await previous;
            if (previous !== undefined && delayMs > 0) await sleep(delayMs, options.signal);
          })();
          return turn;
        },
        counted: () => void fetched++,
        validatorsOf: (url) => options.known?.get(url),
      }),
    known: (url) => options.known?.get(url),
    aborted: () => options.signal?.aborted === true,
    fail: (url, error, transient = false) => {
      if (options.signal?.aborted === true) throw options.signal.reason;
      const reason = reasonOf(error);
      errors.push({ url, reason });
      if (transient) unreachable.push(url);
      const refused = outboundRefusal(error) !== undefined || reason.includes("off the site");
      logger[refused ? "warn" : "info"]({ url, reason }, "crawler: could not read a URL");
    },
  };
  const result = (pages: CrawledPage[], texts: PageText[] = []): CrawlResult => ({
    origin,
    pages,
    texts,
    errors,
    pagesAsked,
    unreachable,
    fetched,
    startedAt,
    finishedAt: Date.now(),
  });

  const robots = await readRobots(crawl);
  if (robots === undefined) return result([]);
  const inPatterns = pagePatternTest(site);
  const refusal = (url: string): string | undefined => {
    if (robots.isAllowed(url, options.userAgent) !== true) return "disallowed by robots.txt";
    if (!inPatterns(new URL(url).pathname)) return "not in the site's enabled pages";
    return undefined;
  };
  const allowed = (url: string): boolean => {
    const why = refusal(url);
    if (why !== undefined) logger.debug({ url, why }, "crawler: page skipped");
    return why === undefined;
  };
  const crawlDelay = robots.getCrawlDelay(options.userAgent);
  if (crawlDelay !== undefined && crawlDelay > 0) {
    delayMs = Math.min(crawlDelay * 1000, MAX_CRAWL_DELAY_MS);
  }

  const named = robots.getSitemaps();
  const sitemaps = named.length > 0 ? named : [`${origin}/sitemap.xml`];
  const listed = await sitemapPages(crawl, sitemaps, maxPages, allowed);
  const perHost = options.perHost ?? CRAWL_DEFAULTS.perHost;
  const pages: CrawledPage[] = [];
  const texts: PageText[] = [];
  const seen = new Set<string>();
  const keep = (page: CrawledPage, text: PageText) => {
    // Two URLs may redirect to one page: it is kept once.
    if (!seen.has(page.url)) {
      pages.push(page);
      texts.push(text);
    }
    seen.add(page.url);
  };
  if (listed.length > 0) {
    pagesAsked = listed.length;
    for (const read of await readPages(crawl, listed, perHost, refusal))
      if (read?.kept) keep(read.kept.page, read.kept.text);
    return result(pages, texts);
  }

  // No sitemap: the links of `/`, level by level, so the order is the same on every run.
  const home = `${origin}/`;
  // Every URL met once; only those it may read are asked for, and count against maxPages.
  const met = new Set<string>([home]);
  let level = allowed(home) ? [home] : [];
  let asked = level.length;
  for (let depth = 0; level.length > 0; depth++) {
    const next: string[] = [];
    pagesAsked += level.length;
    for (const read of await readPages(crawl, level, perHost, refusal)) {
      if (read === undefined) continue;
      if (read.kept) keep(read.kept.page, read.kept.text);
      met.add(read.url);
      if (depth >= maxDepth) continue;
      for (const link of read.links) {
        if (asked >= maxPages) break;
        const url = pageUrl(link, link, origin);
        if (url === undefined || met.has(url)) continue;
        met.add(url);
        if (!allowed(url)) continue;
        next.push(url);
        asked += 1;
      }
    }
    level = next;
  }
  return result(pages, texts);
}

type Robots = ReturnType<typeof robotsParser>;

/**
 * The site's robots.txt; one that is missing (any 4xx) allows everything. Undefined when it
 * could not be read (a 5xx, no answer, the guard's refusal): the crawl stops there, as search
 * engines do, since its rules are unknown.
 */
async function readRobots(crawl: CrawlContext): Promise<Robots | undefined> {
  const url = `${crawl.origin}/robots.txt`;
  try {
    const response = await crawl.get(url);
    if (response.status >= 400 && response.status < 500) return robotsParser(url, "");
    if (response.status < 200 || response.status > 299) {
      crawl.fail(url, `HTTP ${response.status}`);
      return undefined;
    }
    return robotsParser(url, response.body.toString("utf8"));
  } catch (error) {
    crawl.fail(url, error);
    return undefined;
  }
}

/** A failure in words for the crawl's errors. */
function reasonOf(error: unknown): string {
  if (typeof error === "string") return error;
  if (error instanceof CrawlFetchError) return error.reason;
  const refused = outboundRefusal(error);
  if (refused !== undefined) return refused.message;
  if (error instanceof ResponseTooLargeError) return `larger than ${error.limit} bytes`;
  return `could not be fetched: ${messageWithCause(error)}`;
}
