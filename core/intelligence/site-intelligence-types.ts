/**
 * What `GET /v1/:siteId/site-intelligence` answers (SiteIntelligenceResponse, the envelope's
 * `data`): the pages of the site's latest finished crawl, what each collection of its adapter
 * holds, and its personality prompt. Field names are the contract's (camelCase but for
 * `personality_prompt`).
 */
import type { FieldType } from "../search/search-types.ts";

/** One crawled page, as the crawler recorded it. */
export interface SitePage {
  /** The page's URL in the crawler's normal form. */
  url: string;
  /** Null when the page has none. */
  title: string | null;
  description: string | null;
  /** Ids of the page's headings and of elements inside them, in document order. */
  sectionIds: string[];
  /** The sections of its main text the site's knowledge holds (0 when none). */
  sections: number;
}

/** The site as its latest finished crawl saw it. */
export interface SiteView {
  /** `https://<domain>` (`http://` for localhost and 127.0.0.1). */
  origin: string;
  totalPages: number;
  pages: SitePage[];
  /** The site's knowledge: when its index was last built (ISO 8601), null while it holds none. */
  knowledge: { updatedAt: string | null };
}

export interface FieldView {
  name: string;
  type: FieldType;
  sample?: unknown;
}

/** One collection of the site's adapter: its allowed fields as introspection found them. */
export interface CollectionView {
  name: string;
  source: string;
  recordCount?: number;
  description?: string;
  fields: FieldView[];
  /** Why introspection failed (short, nothing secret); the other collections are unaffected. */
  error?: string;
}

export interface DataView {
  collections: CollectionView[];
}

export interface SiteIntelligenceResponse {
  /** When `site` and `data` were built (ISO 8601). */
  generatedAt: string;
  /** Absent while no crawl of the site finished done. */
  site?: SiteView;
  /** Absent when the site has no data adapter. */
  data?: DataView;
  personality_prompt?: string;
}

/** What the token service takes from the crawl for a voice session. */
export interface SessionView {
  pages: SitePage[];
  /** scroll_to's ids: the visitor's page's first, then the other pages', once each, capped. */
  sectionIds: string[];
  /** Whether `sectionIds` holds every id of the site's pages (false when it was capped). */
  allSectionIds: boolean;
}
