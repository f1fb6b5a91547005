/* Generated from schemas/token-create.schema.json by npm run gen:types. Do not edit. */

/**
 * A page of the site, as the visitor's browser reports it. Only http(s) URLs are kept: a dashboard shows them as links, and a javascript: or data: URL there would run in the site owner's browser.
 */
export type PageUrl = string;

/**
 * Body of `POST /v1/:siteId/token` (Origin-checked): may be empty. The session remembers the page it started on.
 */
export interface TokenRequest {
  /**
   * The page the visitor starts the conversation on.
   */
  page_url?: PageUrl;
  /**
   * How the visitor talks: `voice` speaks and hears; `text` types and reads (a provider session that answers in text); `callback` only sends the "Talk to a person" form, so the session has no provider session and is refused when the site's lead capture is off.
   */
  mode?: "voice" | "text" | "callback";
}
