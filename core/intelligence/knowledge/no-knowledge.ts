/**
 * TEMPORARY, until the knowledge service (core/intelligence/knowledge/knowledge-service.ts) is on
 * main: what the composition root gives the knowledge routes meanwhile, a knowledge that holds
 * nothing, as a site whose crawl found nothing answers. Removed when the real one is composed.
 */
import type { KnowledgeReader } from "./knowledge-types.ts";

export const noKnowledge: KnowledgeReader = {
  search: async () => [],
  stats: async () => ({ pages: 0, sections: 0, passages: 0, languages: [], indexed_at: null }),
  pages: async () => [],
  failures: async () => [],
};
