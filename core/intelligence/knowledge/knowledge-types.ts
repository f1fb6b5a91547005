/**
 * The shapes of a site's knowledge: what the crawl keeps of each HTML page's main content (its
 * sections at headings), the passages the index holds (sections cut to a bounded size), and what
 * a search answers. Apart from the code so that the crawler, the index, the store and the routes
 * read one contract.
 */

/** One section of a page's main content: the text from one heading to the next. */
export interface PageSection {
  /**
   * The heading path, outermost first (`["Opening hours", "Holidays"]` for an h3 under an h2
   * under the page's h1 is `[h1, h2, h3]`); empty for text before the first heading.
   */
  headings: string[];
  /**
   * The id a visitor's page scrolls to for this section: the heading's own id, else an id of an
   * element inside the heading, else that of the nearest enclosing element; null when none.
   */
  sectionId: string | null;
  /**
   * The section's text: whitespace collapsed, paragraphs and list items on lines of their own
   * (an item as `- text`), a table row as its cells joined by ` | `.
   */
  text: string;
}

/** What the crawl keeps of one HTML page's main content. */
export interface PageContent {
  /** The page's URL in normal form (as the crawler gives it). */
  url: string;
  /** `<title>`, trimmed; null without one. */
  title: string | null;
  /** `<html lang>`'s primary subtag in lower case (`de` for `de-CH`); null without one. */
  language: string | null;
  /** In document order; none when the page has no main text. */
  sections: PageSection[];
}

/** A section, or a part of a long one, as the index holds it and a search answers it. */
export interface Passage {
  /** `<url>#<n>`, n counting the page's passages from 0: the same while the page is unchanged. */
  id: string;
  url: string;
  /** The page's title (its URL's path when it has none). */
  title: string;
  /** The heading path joined by ` > `, repeated on every passage of a section cut in parts. */
  heading: string;
  sectionId: string | null;
  /** At most MAX_PASSAGE_CHARS characters, cut at a line or sentence end where one is near. */
  text: string;
}

/** The most characters of a passage's text. */
export const MAX_PASSAGE_CHARS = 800;

/** One passage a search found, as the agent, the API and the dashboard receive it. */
export interface KnowledgeHit {
  url: string;
  title: string;
  heading: string;
  section_id: string | null;
  text: string;
  /**
   * The ranking's score, higher first; comparable within one answer only. The keyword ranking's
   * BM25+ score, or, when a meaning search was fused in, the fused score (rank-fusion.ts: 1 for a
   * passage first in both rankings).
   */
  score: number;
}

/** What a site's knowledge holds, as `GET /v1/sites/:id/knowledge/stats` answers it. */
export interface KnowledgeStats {
  pages: number;
  sections: number;
  passages: number;
  /** The pages' languages (primary subtags), sorted; the site's own when pages declare none. */
  languages: string[];
  /** When the index was last built (ISO 8601); null before the first crawl that found text. */
  indexed_at: string | null;
}

/** A page the knowledge holds, with how many sections it gave. */
export interface KnowledgePage {
  url: string;
  title: string;
  sections: number;
}

/** A page the latest crawl could not index, and why. */
export interface KnowledgeFailure {
  url: string;
  reason: string;
}

/**
 * What the routes, the CLI and the dashboard ask of a site's knowledge. A site without any answers
 * an empty list and zero counts, never an error.
 */
export interface KnowledgeReader {
  /**
   * At most `limit` (clamped to 1..5) passages, best first; `signal` (the client gone) ends the
   * wait for the meaning search, the keyword answer then coming at once.
   */
  search(
    siteId: string,
    query: string,
    limit: number,
    signal?: AbortSignal,
  ): Promise<KnowledgeHit[]>;
  stats(siteId: string): Promise<KnowledgeStats>;
  /** In URL order. */
  pages(siteId: string): Promise<KnowledgePage[]>;
  failures(siteId: string): Promise<KnowledgeFailure[]>;
}
