/**
 * Fetching and reading the crawl's pages: one GET each (origin-fetch.ts: same-origin redirects
 * only, each target checked against robots.txt and the page patterns, conditional on what earlier
 * crawls kept of it), HTML only, the answer's title, description, section ids, links and main
 * text; of a page that asks not to be indexed (noindex) only its links, and of one that asks not
 * to be followed (nofollow) none. A 304 gives the page as it was kept. A page that fails is an error of the crawl, never
 * the crawl's failure.
 */
import PQueue from "p-queue";
import { outlineIds } from "../knowledge/outline-ids.ts";
import { pageText } from "../knowledge/page-text.ts";
import type { CrawlContext, CrawledPage, KnownPage, PageText } from "./crawl-types.ts";
import { extractPage } from "./extract.ts";
import { CrawlFetchError, header, headerValues } from "./origin-fetch.ts";
import { pageDirectives, productToken } from "./page-directives.ts";
import { pageUrl } from "./crawl-urls.ts";
import type { OutboundResponse } from "../../security/guarded-request.ts";

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/** One page read. */
export interface ReadPage {
  /** Its URL after redirects, in normal form. */
  url: string;
  /** The page and its text; none for one that asks not to be indexed (page-directives.ts). */
  kept?: { page: CrawledPage; text: PageText };
  /** Its links within the site (in normal form); none for one that asks not to be followed. */
  links: string[];
}

type Outcome = ReadPage | { failure: unknown; transient: boolean };

/**
 * Reads `urls` at most `concurrency` at a time; answers, in the order of `urls`, each page read
 * or undefined. Failures are recorded in the crawl's errors in that order too (not in the order
 * the answers came), so a crawl's result is the same on every run.
 */
export async function readPages(
  crawl: CrawlContext,
  urls: readonly string[],
  concurrency: number,
  refusal: (url: string) => string | undefined,
): Promise<(ReadPage | undefined)[]> {
  const queue = new PQueue({ concurrency });
  const outcomes = await Promise.all(
    urls.map((url) => queue.add(() => readPage(crawl, url, refusal))),
  );
  return outcomes.map((outcome, i) => {
    if (!("failure" in outcome)) return outcome;
    crawl.fail(urls[i]!, outcome.failure, outcome.transient);
    return undefined;
  });
}

async function readPage(
  crawl: CrawlContext,
  url: string,
  refusal: (url: string) => string | undefined,
): Promise<Outcome> {
  let response;
  try {
    response = await crawl.get(url, refusal);
  } catch (error) {
    if (crawl.aborted()) throw error;
    return { failure: error, transient: mayPass(error) };
  }
  const finalUrl = pageUrl(response.url, response.url, crawl.origin) ?? url;
  const known = crawl.known(finalUrl);
  if (response.status === 304 && known !== undefined) return notModified(response, finalUrl, known);
  if (response.status < 200 || response.status > 299) {
    const transient = response.status >= 500 || response.status === 429;
    return { failure: `HTTP ${response.status}`, transient };
  }
  const type = (header(response, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!HTML_TYPES.has(type)) {
    return { failure: `not HTML (${type === "" ? "no Content-Type" : type})`, transient: false };
  }
  const html = response.body.toString("utf8");
  const token = productToken(crawl.userAgent);
  const extracted = extractPage(html, finalUrl, { links: true, robotsNames: ["robots", token] });
  const directives = pageDirectives(
    extracted.robots,
    headerValues(response, "x-robots-tag"),
    token,
  );
  const links = directives.nofollow ? [] : siteLinks(extracted.links, crawl.origin);
  if (directives.noindex) return { url: finalUrl, links };
  let text;
  try {
    text = pageText(html, finalUrl);
  } catch (error) {
    // What was known of its text stands: the next crawl reads it again.
    return { failure: `text not read: ${String(error)}`, transient: true };
  }
  const kept: ReadPage["kept"] = {
    page: {
      url: finalUrl,
      title: extracted.title,
      description: extracted.description,
      sectionIds: outlineIds(extracted.sectionIds, text.content.passages),
    },
    text: {
      url: finalUrl,
      change:
        known === undefined
          ? "new"
          : known.contentHash === text.contentHash
            ? "unchanged"
            : "changed",
      notModified: false,
      etag: header(response, "etag") ?? null,
      lastModified: header(response, "last-modified") ?? null,
      contentHash: text.contentHash,
      links,
      content: known?.contentHash === text.contentHash ? undefined : text.content,
    },
  };
  return { url: finalUrl, kept, links };
}

/** A 304: the page as it was known, with the validators the answer may have renewed. */
function notModified(response: OutboundResponse, url: string, known: KnownPage): ReadPage {
  const kept: ReadPage["kept"] = {
    page: { ...known.page, url },
    text: {
      url,
      change: "unchanged",
      notModified: true,
      etag: header(response, "etag") ?? known.etag,
      lastModified: header(response, "last-modified") ?? known.lastModified,
      contentHash: known.contentHash,
      links: known.links,
    },
  };
  return { url, kept, links: known.links };
}

/** The links within the site's origin, in normal form, once each, in page order. */
function siteLinks(links: readonly string[], origin: string): string[] {
  const kept = new Set<string>();
  for (const link of links) {
    const url = pageUrl(link, link, origin);
    if (url !== undefined) kept.add(url);
  }
  return [...kept];
}

/**
 * Whether a failure to fetch may pass by the next crawl (no answer in time, a broken connection)
 * rather than tell of the page (a redirect off the site, a loop, a refusal, a body too large).
 */
function mayPass(error: unknown): boolean {
  if (error instanceof CrawlFetchError) return error.reason.startsWith("no answer within");
  const codes = [error, (error as { cause?: unknown } | undefined)?.cause].map(
    (part) => (part as { code?: unknown } | undefined)?.code,
  );
  return codes.some((code) => typeof code === "string" && NETWORK_CODES.has(code));
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
