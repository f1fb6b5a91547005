/* Generated from schemas/session-resume.schema.json by npm run gen:types. Do not edit. */

/**
 * A page of the site, as the visitor's browser reports it. Only http(s) URLs are kept: a dashboard shows them as links, and a javascript: or data: URL there would run in the site owner's browser.
 */
export type PageUrl = string;

/**
 * Body of `POST /v1/:siteId/session/resume` (signed by the session): may be empty. A new provider session for a widget session that goes on, in the mode asked for, whatever the session started in.
 */
export interface SessionResumption {
  /**
   * The page the conversation continues on.
   */
  page_url?: PageUrl;
  /**
   * How the visitor talks from now on: `voice` speaks and hears; `text` types and reads. A text conversation resumed on another page asks for `text` again; a visitor may switch it to `voice`.
   */
  mode?: "voice" | "text";
}
