/** The site crawler (issue 13): `crawlSite` and its types. */
export { crawlSite, CRAWL_DEFAULTS, MAX_CRAWL_DELAY_MS } from "./crawl-site.ts";
export type {
  CrawlError,
  CrawledPage,
  CrawlOptions,
  CrawlResult,
  CrawlSite,
  KnownPage,
  PageChange,
  PageText,
} from "./crawl-types.ts";
