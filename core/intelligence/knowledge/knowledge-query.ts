/**
 * The bounds of a knowledge search, one place for every way in (the widget's signed call and its
 * schema, the business's GET, the CLI, the dashboard): a question of 1 to 500 characters holding
 * a word, and 1 to 5 passages, 3 when not said.
 */
import { errors } from "../../errors.ts";
import { MAX_SEARCH_LIMIT } from "./knowledge-index.ts";

export const KNOWLEDGE_QUERY = {
  /** The longest question (schemas/knowledge-search.schema.json says the same). */
  maxChars: 500,
  /** The most passages one search answers. */
  maxLimit: MAX_SEARCH_LIMIT,
  /** The passages a search answers when not told how many. */
  defaultLimit: 3,
} as const;

/** `text` when it is a question a search takes; else 400 invalid_request naming `field`. */
export function knowledgeQueryText(text: string | undefined, field: string): string {
  if (text === undefined || text.trim() === "") {
    throw errors.invalidRequest(`${field} is required: the words to look for`, { field });
  }
  if (text.length > KNOWLEDGE_QUERY.maxChars) {
    throw errors.invalidRequest(`${field} must be at most ${KNOWLEDGE_QUERY.maxChars} characters`, {
      field,
    });
  }
  return text;
}
