/**
 * The crawler's interface: what `crawlSite` takes and answers. Apart from the code so that a
 * caller (a job, a route) reads the contract without the machinery.
 */
import type { Logger } from "pino";
import type { GuardedRequest, OutboundResponse } from "../../security/guarded-request.ts";

/** What of a site the crawler needs (a SiteConfig has these fields). */
export interface CrawlSite {
  /** The site's domain, with a port when it has one: `shop.example`, `127.0.0.1:8080`. */
  domain: string;
  /** Path patterns of the pages to crawl (`*` any run of characters); every page when absent. */
  enabled_pages?: string[];
  /** Path patterns of pages never crawled, even when enabled. */
  disabled_pages?: string[];
}

export interface CrawlOptions {
  /** The guarded request (the SSRF guard): every request of the crawl goes through it. */
  request: GuardedRequest;
  /** Sent as User-Agent, and the agent robots.txt rules are read for. */
  userAgent: string;
  /** Pages fetched at most (each URL asked for counts, answered or not). 500 by default. */
  maxPages?: number;
  /** Links followed from `/` at most this many deep (`/` is 0), without a sitemap. 5. */
  maxDepth?: number;
  /** Requests to the site at once. 3. */
  perHost?: number;
  /** Per request. 10 000. */
  timeoutMs?: number;
  /** The most of a body read (robots.txt, a sitemap, unzipped too, a page). 2 MiB. */
  maxBytes?: number;
  logger?: Logger;
  /** Ends the crawl: crawlSite rejects with the signal's reason. */
  signal?: AbortSignal;
  /** How the Crawl-delay is waited; a test records it. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CrawledPage {
  /** The page's URL in normal form (crawl-urls.ts), after same-origin redirects. */
  url: string;
  title: string | null;
  description: string | null;
  /** Ids of headings and of elements inside them, in document order, once each. */
  sectionIds: string[];
}

export interface CrawlError {
  /** The URL asked for (robots.txt, a sitemap or a page). */
  url: string;
  reason: string;
}

export interface CrawlResult {
  /** `https://<domain>` (`http://` for localhost and 127.0.0.1). */
  origin: string;
  pages: CrawledPage[];
  errors: CrawlError[];
  /** HTTP requests made, every redirect hop and robots.txt included. */
  fetched: number;
  /** Milliseconds since the epoch, as the store keeps times. */
  startedAt: number;
  finishedAt: number;
}

/** What the parts of one crawl share (made by crawlSite). */
export interface CrawlContext {
  origin: string;
  userAgent: string;
  maxBytes: number;
  logger: Logger;
  /** A GET within the origin (origin-fetch.ts), spaced by the Crawl-delay. */
  get: (url: string, mayFollow?: (url: string) => string | undefined) => Promise<OutboundResponse>;
  /** Whether the caller's signal ended the crawl (a failure then is not the URL's). */
  aborted: () => boolean;
  /** Records a failure of `url` and logs it; rethrows when the crawl was aborted. */
  fail: (url: string, error: unknown) => void;
}
