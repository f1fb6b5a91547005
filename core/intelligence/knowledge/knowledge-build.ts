/**
 * Building a site's index from its stored pages' passages, with what the knowledge row says of
 * it (pages, sections, passages, languages). Used at a crawl's end when something changed, and by
 * an instance that finds an index of another format stored.
 */
import type { SiteKnowledgeRow } from "../../store/repos/site-knowledge-repo.ts";
import { KNOWLEDGE_INDEX_FORMAT, KnowledgeIndex } from "./knowledge-index.ts";
import type { Passage } from "./knowledge-types.ts";
import type { VectorIndex } from "./vector-index.ts";

/** One stored page as the index is built from it. */
export interface IndexedPage {
  url: string;
  language: string | null;
  sectionCount: number;
  passages: Passage[];
}

/** An index built (with its passages' vectors, when made), and the knowledge row that stores it. */
export interface BuiltKnowledge {
  index: KnowledgeIndex;
  vectors: VectorIndex | undefined;
  row: SiteKnowledgeRow;
}

/** The vectors of the pages' passages, and the embeddings provider that made them. */
export interface BuiltVectors {
  index: VectorIndex;
  provider: string;
}

/** The primary subtag of a language tag, in lower case: `pt` of `pt-BR`. */
export const primaryLanguage = (tag: string): string => tag.split("-")[0]!.toLowerCase();

/**
 * The index of `pages` (any order; indexed in URL order, so the same pages give the same index)
 * for the site's `language`, built `at`, stored with `vectors` when given.
 */
export function buildKnowledge(
  pages: readonly IndexedPage[],
  site: { siteId: string; language: string },
  built: { at: number; crawlId: string | null; failures: string; vectors?: BuiltVectors },
): BuiltKnowledge {
  const ordered = [...pages].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const language = primaryLanguage(site.language);
  const index = KnowledgeIndex.build(
    ordered.flatMap((page) => page.passages),
    language,
  );
  const declared = new Set(ordered.flatMap((page) => (page.language ? [page.language] : [])));
  return {
    index,
    vectors: built.vectors?.index,
    row: {
      site_id: site.siteId,
      format: KNOWLEDGE_INDEX_FORMAT,
      language,
      serialized: index.serialize(),
      built_at: built.at,
      pages: ordered.length,
      sections: ordered.reduce((sum, page) => sum + page.sectionCount, 0),
      passages: ordered.reduce((sum, page) => sum + page.passages.length, 0),
      languages: JSON.stringify(declared.size > 0 ? [...declared].sort() : [language]),
      crawl_id: built.crawlId,
      failures: built.failures,
      vectors: built.vectors?.index.serialize() ?? null,
      vectors_provider: built.vectors?.provider ?? null,
    },
  };
}
