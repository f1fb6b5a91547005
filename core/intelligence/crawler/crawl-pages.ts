/**
 * Fetching and reading the crawl's pages: one GET each (origin-fetch.ts: same-origin redirects
 * only, each target checked against robots.txt and the page patterns), HTML only, the answer's
 * title, description, section ids and links. A page that fails is an error of the crawl, never
 * the crawl's failure.
 */
import PQueue from "p-queue";
import type { CrawlContext, CrawledPage } from "./crawl-types.ts";
import { extractPage } from "./extract.ts";
import { header } from "./origin-fetch.ts";
import { pageUrl } from "./crawl-urls.ts";

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/** One page read: the page, and the links found on it (absolute, not yet filtered). */
export interface ReadPage {
  page: CrawledPage;
  links: string[];
}

/**
 * Reads `urls` at most `concurrency` at a time; answers, in the order of `urls`, each page read
 * (with its links when `links`) or undefined. Failures are recorded in the crawl's errors in that order too (not in the order
 * the answers came), so a crawl's result is the same on every run.
 */
export async function readPages(
  crawl: CrawlContext,
  urls: readonly string[],
  concurrency: number,
  refusal: (url: string) => string | undefined,
  links: boolean,
): Promise<(ReadPage | undefined)[]> {
  const queue = new PQueue({ concurrency });
  const outcomes = await Promise.all(
    urls.map((url) => queue.add(() => readPage(crawl, url, refusal, links))),
  );
  return outcomes.map((outcome, i) => {
    if (!("failure" in outcome)) return outcome;
    crawl.fail(urls[i]!, outcome.failure);
    return undefined;
  });
}

async function readPage(
  crawl: CrawlContext,
  url: string,
  refusal: (url: string) => string | undefined,
  links: boolean,
): Promise<ReadPage | { failure: unknown }> {
  let response;
  try {
    response = await crawl.get(url, refusal);
  } catch (error) {
    if (crawl.aborted()) throw error;
    return { failure: error };
  }
  if (response.status < 200 || response.status > 299) {
    return { failure: `HTTP ${response.status}` };
  }
  const type = (header(response, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!HTML_TYPES.has(type)) {
    return { failure: `not HTML (${type === "" ? "no Content-Type" : type})` };
  }
  const finalUrl = pageUrl(response.url, response.url, crawl.origin) ?? url;
  const extracted = extractPage(response.body.toString("utf8"), finalUrl, { links });
  return {
    page: {
      url: finalUrl,
      title: extracted.title,
      description: extracted.description,
      sectionIds: extracted.sectionIds,
    },
    links: extracted.links,
  };
}
