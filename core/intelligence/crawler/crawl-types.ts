/**
 * The crawler's interface: what `crawlSite` takes and answers. Apart from the code so that a
 * caller (a job, a route) reads the contract without the machinery.
 */
import type { Logger } from "pino";
import type { GuardedRequest, OutboundResponse } from "../../security/guarded-request.ts";
import type { Passage } from "../knowledge/knowledge-types.ts";

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
  /**
   * What earlier crawls kept of each page, by URL in normal form: its validators are sent back
   * (If-None-Match, If-Modified-Since), and a 304 gives the page as it was kept.
   */
  known?: ReadonlyMap<string, KnownPage>;
}

/** What an earlier crawl kept of a page: enough to ask for it again, and to use a 304. */
export interface KnownPage {
  etag: string | null;
  lastModified: string | null;
  /** SHA-256 (hex) of its passages' canonical JSON: the same text gives the same hash. */
  contentHash: string;
  /** Its outline, as a 304 leaves it. */
  page: CrawledPage;
  /** Its links within the site, followed after a 304 as after a 200. */
  links: string[];
}

/** How a page's text compares with what was known of it. */
export type PageChange = "new" | "changed" | "unchanged";

/** What a crawl found of one page's text (beside its CrawledPage, of the same URL). */
export interface PageText {
  url: string;
  change: PageChange;
  /** Whether it answered 304: what was known of it stands. */
  notModified: boolean;
  /** The validators of its answer (a 304's, else those known). */
  etag: string | null;
  lastModified: string | null;
  contentHash: string;
  /** Its links within the site, in normal form, once each. */
  links: string[];
  /** Its main content: on a page `new` or `changed`. */
  content?: PageTextContent;
}

/** A page's main content as the knowledge keeps it (core/intelligence/knowledge/page-text.ts). */
export interface PageTextContent {
  /** `<html lang>`'s primary subtag; null without one. */
  language: string | null;
  sectionCount: number;
  passages: Passage[];
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
  /** What each page's text was, in the order of `pages`. */
  texts: PageText[];
  errors: CrawlError[];
  /** Page URLs asked for (robots.txt and sitemaps not included). */
  pagesAsked: number;
  /**
   * URLs of pages whose failure may pass (a 5xx or 429 answer, none in time, a broken
   * connection): what was known of them stands.
   */
  unreachable: string[];
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
  /**
   * A GET within the origin (origin-fetch.ts), spaced by the Crawl-delay, conditional on what is
   * known of each URL it reaches.
   */
  get: (url: string, mayFollow?: (url: string) => string | undefined) => Promise<OutboundResponse>;
  /** What was known of a page before this crawl (CrawlOptions.known). */
  known: (url: string) => KnownPage | undefined;
  /** Whether the caller's signal ended the crawl (a failure then is not the URL's). */
  aborted: () => boolean;
  /**
   * Records a failure of `url` and logs it (one that may pass, `transient`, is also in the
   * result's `unreachable`); rethrows when the crawl was aborted.
   */
  fail: (url: string, error: unknown, transient?: boolean) => void;
}
