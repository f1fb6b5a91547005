/**
 * The pages a site's sitemaps list: the sitemaps robots.txt names (or `/sitemap.xml`), read
 * through sitemap indexes, gzipped or not. Only URLs of the site's origin are taken; another
 * origin's, a sitemap's or a page's, is skipped before anything asks for it, so a sitemap cannot
 * point the crawler at another host. Bounded: 50 sitemap files, indexes 3 deep, each body (and
 * each unzipped body) at most the crawl's `maxBytes`, and no more pages than the crawl takes.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { CrawlContext } from "./crawl-types.ts";
import { pageUrl } from "./crawl-urls.ts";
import { extractSitemap } from "./extract.ts";

const MAX_SITEMAPS = 50;
const MAX_INDEX_DEPTH = 3;

const gunzip = promisify(zlib.gunzip);

/**
 * The pages of the sitemaps at `sitemapUrls` that `accept` takes, in the order listed, once
 * each, at most `limit`. An unreadable sitemap is recorded in the crawl's errors; a missing one
 * (404, 410) only logged, since it means there is none.
 */
export async function sitemapPages(
  crawl: CrawlContext,
  sitemapUrls: readonly string[],
  limit: number,
  accept: (url: string) => boolean,
): Promise<string[]> {
  const pages = new Set<string>();
  const seen = new Set<string>();
  let queue = onOrigin(crawl, sitemapUrls, "sitemap");
  let read = 0;
  for (let depth = 0; depth < MAX_INDEX_DEPTH && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const sitemap of queue) {
      if (pages.size >= limit || read >= MAX_SITEMAPS) return [...pages];
      if (seen.has(sitemap)) continue;
      seen.add(sitemap);
      read++;
      const xml = await readSitemap(crawl, sitemap);
      if (xml === undefined) continue;
      const { kind, locs } = extractSitemap(xml);
      if (kind === "index") {
        next.push(...onOrigin(crawl, locs, "sitemap"));
        continue;
      }
      for (const page of onOrigin(crawl, locs, "page")) {
        if (pages.size >= limit) break;
        if (accept(page)) pages.add(page);
      }
    }
    queue = next;
  }
  return [...pages];
}

/** The URLs of `locs` on the crawl's origin, in normal form; the others logged and dropped. */
function onOrigin(crawl: CrawlContext, locs: readonly string[], what: string): string[] {
  const kept: string[] = [];
  for (const loc of locs) {
    const url = pageUrl(loc, crawl.origin, crawl.origin);
    if (url !== undefined && URL.canParse(loc)) kept.push(url);
    else
      crawl.logger.warn(
        { origin: crawl.origin, loc: loc.slice(0, 500) },
        `crawler: ${what} off the site skipped`,
      );
  }
  return kept;
}

/** The sitemap's XML, unzipped; undefined when there is none or it could not be read. */
async function readSitemap(crawl: CrawlContext, url: string): Promise<string | undefined> {
  try {
    const response = await crawl.get(url);
    if (response.status === 404 || response.status === 410) {
      crawl.logger.info({ url, status: response.status }, "crawler: no sitemap there");
      return undefined;
    }
    if (response.status < 200 || response.status > 299) {
      crawl.fail(url, `HTTP ${response.status}`);
      return undefined;
    }
    let body = response.body;
    // A .gz file arrives as it is stored (application/gzip, no Content-Encoding); one sent with
    // Content-Encoding: gzip was decoded by the guarded request already.
    if (body[0] === 0x1f && body[1] === 0x8b) {
      try {
        body = await gunzip(body, { maxOutputLength: crawl.maxBytes });
      } catch (error) {
        const tooLarge = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
        crawl.fail(
          url,
          tooLarge ? `larger than ${crawl.maxBytes} bytes unzipped` : "not valid gzip",
        );
        return undefined;
      }
    }
    return body.toString("utf8");
  } catch (error) {
    crawl.fail(url, error);
    return undefined;
  }
}
