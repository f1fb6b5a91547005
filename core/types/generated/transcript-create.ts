/* Generated from schemas/transcript-create.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/:siteId/transcript` (signed by the widget): the conversation's turns. Kept for the site's `transcript_retention_days` (0 keeps none).
 */
export interface Transcript {
  /**
   * In order.
   *
   * @maxItems 2000
   */
  turns: Turn[];
  /**
   * The page of the session.
   */
  page_url?: string;
}
/**
 * One utterance or function call.
 */
export interface Turn {
  /**
   * Who spoke.
   */
  role: "visitor" | "assistant" | "function";
  /**
   * What was said.
   */
  text?: string;
  /**
   * For a function turn.
   */
  name?: string;
  /**
   * For a function turn.
   */
  arguments?: {
    [k: string]: unknown;
  };
  /**
   * When, ISO 8601.
   */
  at: string;
}
