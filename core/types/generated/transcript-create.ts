/* Generated from schemas/transcript-create.schema.json by npm run gen:types. Do not edit. */

/**
 * A page of the site, as the visitor's browser reports it. Only http(s) URLs are kept: a dashboard shows them as links, and a javascript: or data: URL there would run in the site owner's browser.
 */
export type PageUrl = string;
/**
 * The widget's own id for this write. The same signed body sent again in a session is a replay and records nothing new; two genuine writes with the same content differ by their client ids.
 */
export type ClientId = string;

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
  page_url?: PageUrl;
  client_id?: ClientId;
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
