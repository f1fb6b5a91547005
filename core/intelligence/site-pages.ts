/**
 * The pages of a finished crawl as the site-intelligence answer and the voice session use them:
 * read back from the crawl row (each entry checked, since the column is only JSON text), matched
 * to the page a visitor is on, and the section ids scroll_to may name.
 */
import type { CrawlRow } from "../store/repos/crawls-repo.ts";
import { siteOrigin } from "./crawler/crawl-urls.ts";
import type { SessionView, SitePage, SiteView } from "./site-intelligence-types.ts";

/** The most section ids scroll_to is offered: an enum the model reads whole. */
export const MAX_SECTION_IDS = 200;

/** What the site's knowledge adds to the pages: their section counts, when it was built. */
export interface KnowledgeView {
  /** By page URL; a page without any has 0. */
  sections: ReadonlyMap<string, number>;
  updatedAt: string | null;
}

const NO_KNOWLEDGE: KnowledgeView = { sections: new Map(), updatedAt: null };

/**
 * The site view of a finished crawl, with what the site's knowledge holds of its pages; `domain`
 * (the site's) names the origin when it has none.
 */
export function siteViewOf(
  crawl: Pick<CrawlRow, "pages" | "domain">,
  domain: string,
  knowledge: KnowledgeView = NO_KNOWLEDGE,
): SiteView {
  const pages = parsePages(crawl.pages, knowledge.sections);
  return {
    origin: originOf(crawl.domain ?? domain),
    totalPages: pages.length,
    pages,
    knowledge: { updatedAt: knowledge.updatedAt },
  };
}

function originOf(domain: string): string {
  try {
    return siteOrigin(domain);
  } catch {
    return `https://${domain.toLowerCase()}`;
  }
}

/**
 * The pages of a crawl's `pages` column, each with its count of `sections` (0 when absent); an
 * entry of another shape is left out.
 */
export function parsePages(
  json: string | null,
  sections: ReadonlyMap<string, number> = NO_KNOWLEDGE.sections,
): SitePage[] {
  if (json === null) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry: unknown): SitePage[] => {
    if (typeof entry !== "object" || entry === null) return [];
    const page = entry as Record<string, unknown>;
    if (typeof page.url !== "string") return [];
    const text = (value: unknown) => (typeof value === "string" ? value : null);
    const ids = Array.isArray(page.sectionIds) ? page.sectionIds : [];
    return [
      {
        url: page.url,
        title: text(page.title),
        description: text(page.description),
        sectionIds: ids.filter((id): id is string => typeof id === "string" && id !== ""),
        sections: sections.get(page.url) ?? 0,
      },
    ];
  });
}

/**
 * The form two URLs of one page share: origin and path, without query, fragment or a trailing
 * slash. Undefined for what is not an http(s) URL.
 */
export function pageKey(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
}

/**
 * The ids scroll_to may name: those of the page at `pageUrl` first (when it was crawled), then
 * those of the other pages in crawl order, each once, at most MAX_SECTION_IDS; and whether those
 * are all the site's pages have.
 */
export function sectionIdsFor(
  pages: readonly SitePage[],
  pageUrl?: string,
): Pick<SessionView, "sectionIds" | "allSectionIds"> {
  const key = pageUrl === undefined ? undefined : pageKey(pageUrl);
  const current = key === undefined ? [] : pages.filter((page) => pageKey(page.url) === key);
  const ordered = [...current, ...pages.filter((page) => !current.includes(page))];
  const ids = new Set<string>();
  for (const page of ordered) {
    for (const id of page.sectionIds) {
      if (ids.size === MAX_SECTION_IDS && !ids.has(id)) {
        return { sectionIds: [...ids], allSectionIds: false };
      }
      ids.add(id);
    }
  }
  return { sectionIds: [...ids], allSectionIds: true };
}
