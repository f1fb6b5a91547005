/**
 * `sitevoice knowledge search | stats`: a site's knowledge read on the local store, as the
 * agent's search_site and `GET /v1/sites/:id/knowledge` read it.
 */
import { errors } from "../errors.ts";
import { KNOWLEDGE_QUERY, knowledgeQueryText } from "../intelligence/knowledge/knowledge-query.ts";
import type {
  KnowledgeHit,
  KnowledgeReader,
  KnowledgeStats,
} from "../intelligence/knowledge/knowledge-types.ts";
import type { Settings } from "../settings.ts";
import { withParts } from "./command-parts.ts";

/** The characters of a passage's text a result shows. */
const EXCERPT_CHARS = 160;

export async function knowledgeSearch(
  settings: Readonly<Settings>,
  input: { values: { limit?: string; json?: boolean }; positionals: string[] },
) {
  const [siteId, query] = input.positionals as [string, string];
  const text = knowledgeQueryText(query, "query");
  const limit = limitOf(input.values.limit);
  await onKnowledge(settings, siteId, async (knowledge) => {
    const hits = await knowledge.search(siteId, text, limit);
    if (input.values.json === true) {
      console.log(JSON.stringify(hits, null, 2));
      return;
    }
    if (hits.length > 0) {
      console.log(hits.map(formatHit).join("\n\n"));
      return;
    }
    const { passages } = await knowledge.stats(siteId);
    console.log(
      passages === 0
        ? `Nothing found: ${siteId}'s pages hold no knowledge yet (not crawled, or no text found).`
        : `Nothing found among ${siteId}'s ${passages} passages.`,
    );
  });
}

export async function knowledgeStats(
  settings: Readonly<Settings>,
  input: { values: { json?: boolean }; positionals: string[] },
) {
  const siteId = input.positionals[0] as string;
  await onKnowledge(settings, siteId, async (knowledge) => {
    const stats = await knowledge.stats(siteId);
    console.log(input.values.json === true ? JSON.stringify(stats, null, 2) : formatStats(stats));
  });
}

/** Runs `work` on the store's knowledge once the site is known to exist (else the error). */
async function onKnowledge(
  settings: Readonly<Settings>,
  siteId: string,
  work: (knowledge: KnowledgeReader) => Promise<void>,
): Promise<void> {
  await withParts(settings, async (parts) => {
    if ((await parts.store.sites.get(siteId)) === undefined) throw errors.notFound("Site", siteId);
    await work(parts.knowledge);
  });
}

function limitOf(raw: string | undefined): number {
  if (raw === undefined) return KNOWLEDGE_QUERY.defaultLimit;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 1 && value <= KNOWLEDGE_QUERY.maxLimit)) {
    throw errors.invalidRequest(`limit must be an integer from 1 to ${KNOWLEDGE_QUERY.maxLimit}`, {
      field: "limit",
    });
  }
  return value;
}

/** `score  title > heading`, then `url#section_id`, then the start of the text. */
export function formatHit(hit: KnowledgeHit): string {
  const where = [hit.title, hit.heading].filter((part) => part !== "").join(" > ");
  const url = hit.section_id === null ? hit.url : `${hit.url}#${hit.section_id}`;
  const text = hit.text.replace(/\s+/g, " ").trim();
  const excerpt = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS - 1)}…` : text;
  return [`${hit.score.toFixed(2)}  ${where}`, `      ${url}`, `      ${excerpt}`].join("\n");
}

function formatStats(stats: KnowledgeStats): string {
  return [
    `pages      ${stats.pages}`,
    `sections   ${stats.sections}`,
    `passages   ${stats.passages}`,
    `languages  ${stats.languages.length === 0 ? "none" : stats.languages.join(", ")}`,
    `indexed    ${stats.indexed_at ?? "never"}`,
  ].join("\n");
}
