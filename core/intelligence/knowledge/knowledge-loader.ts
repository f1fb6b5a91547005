/**
 * How a site's stored knowledge row becomes what an instance holds: its index, loaded, or, when
 * stored in another format (an older release's), built again from the stored pages and stored
 * in place of it; and its vectors when they are the embeddings provider's in use
 * (stored-vectors.ts), counted with the index in the held size.
 */
import type { Logger } from "pino";
import type { SiteKnowledgeRow } from "../../store/repos/site-knowledge-repo.ts";
import type { Store } from "../../store/store.ts";
import { buildKnowledge, type IndexedPage } from "./knowledge-build.ts";
import type { HeldKnowledge } from "./knowledge-cache.ts";
import {
  KNOWLEDGE_INDEX_FORMAT,
  KnowledgeIndex,
  KnowledgeIndexFormatError,
} from "./knowledge-index.ts";
import type { Passage } from "./knowledge-types.ts";
import { storedVectors } from "./stored-vectors.ts";

export interface KnowledgeLoaderParts {
  store: Store;
  logger: Logger;
  /** The embeddings provider in use (SITEVOICE_EMBEDDINGS); undefined when off. */
  provider: string | undefined;
  now: () => number;
}

type Loaded = Omit<HeldKnowledge, "checkedAt">;

/** What is held of `row`: its index and, when of the provider in use, its vectors. */
export async function loadKnowledge(
  parts: KnowledgeLoaderParts,
  row: SiteKnowledgeRow,
): Promise<Loaded> {
  const keyword = await keywordIndex(parts, row);
  const vectors = storedVectors(row, parts.provider, (error) =>
    parts.logger.warn(
      { site_id: row.site_id, err: error.message },
      "stored site knowledge vectors unreadable: keyword search alone",
    ),
  );
  const size = keyword.size + (vectors === undefined ? 0 : row.vectors!.length);
  return { ...keyword, vectors, size };
}

/** The stored index, or, when stored in another format, one built again from the pages. */
async function keywordIndex(
  parts: KnowledgeLoaderParts,
  row: SiteKnowledgeRow,
): Promise<Omit<Loaded, "vectors">> {
  try {
    if (row.format !== KNOWLEDGE_INDEX_FORMAT) {
      throw new KnowledgeIndexFormatError(`stored as ${row.format}`);
    }
    const index = KnowledgeIndex.load(row.serialized);
    return { index, builtAt: row.built_at, size: row.serialized.length };
  } catch (error) {
    if (!(error instanceof KnowledgeIndexFormatError)) throw error;
    return rebuild(parts, row);
  }
}

async function rebuild(
  parts: KnowledgeLoaderParts,
  row: SiteKnowledgeRow,
): Promise<Omit<Loaded, "vectors">> {
  const { store, logger } = parts;
  const stored = await store.siteKnowledge.passages(row.site_id);
  const pages: IndexedPage[] = stored.map((page) => ({
    url: page.url,
    language: null,
    sectionCount: 0,
    passages: JSON.parse(page.passages) as Passage[],
  }));
  const at = parts.now();
  const built = buildKnowledge(
    pages,
    { siteId: row.site_id, language: row.language },
    { at, crawlId: row.crawl_id, failures: row.failures },
  );
  const { format, language, serialized } = built.row;
  // The vectors stay: they are the same passages', whatever the index's format.
  const replaced = await store.siteKnowledge.replaceIndex(row.site_id, row.built_at, {
    format,
    language,
    serialized,
    built_at: at,
  });
  logger.info(
    { site_id: row.site_id, from_format: row.format, stored: replaced },
    "site knowledge index built again in the current format",
  );
  // Not stored (a crawl stored another meanwhile): the next check reads that one.
  return { index: built.index, builtAt: replaced ? at : row.built_at, size: serialized.length };
}
