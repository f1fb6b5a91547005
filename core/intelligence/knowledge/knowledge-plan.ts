/**
 * What a crawl changes of a site's stored pages: the pages to write whole (new, or whose text
 * changed), those whose answer only renewed their validators, outline or links, those gone, the
 * crawl's counts and the failures to show. Worked out from the crawl's result and the stored
 * pages alone, so the writes and the counts agree.
 *
 * A page is gone when a successful crawl no longer found it (a 404, no more linked or listed, out
 * of the site's pages now). One whose failure may pass (a 5xx, no answer) keeps its row; a crawl
 * that failed changes nothing.
 */
import crypto from "node:crypto";
import type { CrawlResult, KnownPage, PageText } from "../crawler/crawl-types.ts";
import type { CrawlCounts } from "../../store/repos/crawls-repo.ts";
import type {
  KnownPageRow,
  PageTouch,
  SitePageRow,
} from "../../store/repos/site-knowledge-repo.ts";
import type { KnowledgeFailure } from "./knowledge-types.ts";

/** The failures kept for the business to see (the first ones), as for a crawl's errors. */
export const KNOWLEDGE_FAILURES_KEPT = 100;

/** Why a page that was read holds nothing to search. */
export const NO_TEXT = "no main text found";

export interface KnowledgePlan {
  counts: CrawlCounts;
  /** Pages to write whole: new, or whose text changed. */
  put: SitePageRow[];
  /** Unchanged pages whose answer renewed what a later crawl needs of them. */
  touch: { urlHash: string; touch: PageTouch }[];
  /** URL hashes of the pages gone. */
  remove: string[];
  failures: KnowledgeFailure[];
}

/** SHA-256 (hex) of a page's URL: its key in the store. */
export const urlHash = (url: string): string =>
  crypto.createHash("sha256").update(url).digest("hex");

/** The stored pages as the crawler takes them (CrawlOptions.known), by URL. */
export function knownPages(rows: readonly KnownPageRow[]): Map<string, KnownPage> {
  return new Map(
    rows.map((row) => [
      row.url,
      {
        etag: row.etag,
        lastModified: row.last_modified,
        contentHash: row.content_hash,
        page: {
          url: row.url,
          title: row.title,
          description: row.description,
          sectionIds: JSON.parse(row.section_ids) as string[],
        },
        links: JSON.parse(row.links) as string[],
      },
    ]),
  );
}

/**
 * The plan of `result`, a crawl (`crawlId`, ended `done` or not) of the site whose pages are
 * `stored`.
 */
export function planKnowledge(
  result: CrawlResult,
  stored: readonly KnownPageRow[],
  crawl: { siteId: string; crawlId: string; done: boolean; now: number },
): KnowledgePlan {
  const byUrl = new Map(stored.map((row) => [row.url, row]));
  const put: SitePageRow[] = [];
  const touch: KnowledgePlan["touch"] = [];
  const failures: KnowledgeFailure[] = result.errors.map(({ url, reason }) => ({ url, reason }));
  const kept = new Set([...result.unreachable, ...result.texts.map((text) => text.url)]);
  result.texts.forEach((text, i) => {
    const page = result.pages[i]!;
    const row = byUrl.get(text.url);
    const renewed: PageTouch = {
      etag: text.etag,
      last_modified: text.lastModified,
      title: page.title,
      description: page.description,
      section_ids: JSON.stringify(page.sectionIds),
      links: JSON.stringify(text.links),
    };
    if (text.content !== undefined) {
      put.push(pageRow(crawl, text, renewed));
      if (text.content.passages.length === 0) failures.push({ url: text.url, reason: NO_TEXT });
    } else if (row !== undefined) {
      if (!sameTouch(row, renewed)) touch.push({ urlHash: row.url_hash, touch: renewed });
      if (row.passage_count === 0) failures.push({ url: text.url, reason: NO_TEXT });
    }
  });
  const remove = crawl.done
    ? stored.filter((row) => !kept.has(row.url)).map((row) => row.url_hash)
    : [];
  return {
    counts: {
      pages_fetched: result.pagesAsked,
      pages_unchanged: result.texts.filter((text) => text.change === "unchanged").length,
      pages_changed: result.texts.filter((text) => text.change !== "unchanged").length,
      pages_removed: remove.length,
    },
    put: crawl.done ? put : [],
    touch: crawl.done ? touch : [],
    remove,
    failures: failures.slice(0, KNOWLEDGE_FAILURES_KEPT),
  };
}

function pageRow(
  crawl: { siteId: string; crawlId: string; now: number },
  text: PageText,
  renewed: PageTouch,
): SitePageRow {
  const content = text.content!;
  return {
    site_id: crawl.siteId,
    url_hash: urlHash(text.url),
    url: text.url,
    ...renewed,
    content_hash: text.contentHash,
    language: content.language,
    section_count: content.sectionCount,
    passage_count: content.passages.length,
    passages: JSON.stringify(content.passages),
    crawl_id: crawl.crawlId,
    updated_at: crawl.now,
  };
}

const sameTouch = (row: KnownPageRow, touch: PageTouch): boolean =>
  (Object.keys(touch) as (keyof PageTouch)[]).every((key) => row[key] === touch[key]);
