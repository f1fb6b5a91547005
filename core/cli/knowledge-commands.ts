/**
 * The commands on a site's knowledge: `knowledge search` and `knowledge stats` (their code:
 * knowledge.ts), what the agent's search_site and the API answer, read on the local store.
 */
import { KNOWLEDGE_QUERY } from "../intelligence/knowledge/knowledge-query.ts";
import { defineCommand } from "./command-spec.ts";

const json = { type: "boolean", description: "print the API's JSON instead" } as const;

export const knowledgeSearchCommand = defineCommand({
  name: "knowledge search",
  args: "<site_id> <query>",
  positionals: { min: 2, max: 2 },
  summary: "search what a site's pages say, as the agent's search_site does",
  description:
    "Prints the passages of the site's pages that answer the query best, best first: each\n" +
    "one's score, its page title and heading, its url#section_id and the start of its text.\n" +
    `The query is 1 to ${KNOWLEDGE_QUERY.maxChars} characters; --limit is 1 to ${KNOWLEDGE_QUERY.maxLimit} ` +
    `(default ${KNOWLEDGE_QUERY.defaultLimit}). Exit 1 for an unknown site.`,
  options: {
    limit: { type: "string", value: "N", description: "how many passages, 1 to 5 (default 3)" },
    json,
  },
  examples: ['sitevoice knowledge search luigis-trattoria "are you open on sundays" --limit 2'],
  load: async () => (await import("./knowledge.ts")).knowledgeSearch,
});

export const knowledgeStatsCommand = defineCommand({
  name: "knowledge stats",
  args: "<site_id>",
  positionals: { min: 1, max: 1 },
  summary: "what a site's knowledge holds: pages, sections, passages, languages",
  description:
    "Prints how many pages, sections and passages the site's knowledge holds, the pages'\n" +
    "languages and when its index was built. Exit 1 for an unknown site.",
  options: { json },
  examples: ["sitevoice knowledge stats luigis-trattoria"],
  load: async () => (await import("./knowledge.ts")).knowledgeStats,
});
