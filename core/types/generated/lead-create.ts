/* Generated from schemas/lead-create.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/:siteId/leads` (signed by the widget, from the agent's `submit_lead` or `request_callback`). An email or a phone is required; a callback request (`source: "callback"`) also a `reason`, and may bring the conversation's turns so far.
 */
export type LeadCapture = (
  | {
      email: unknown;
      [k: string]: unknown;
    }
  | {
      phone: unknown;
      [k: string]: unknown;
    }
) & {
  /**
   * The visitor's name.
   */
  name?: string;
  /**
   * The visitor's email address.
   */
  email?: string;
  /**
   * The visitor's phone number.
   */
  phone?: string;
  /**
   * What the visitor wants.
   */
  message?: string;
  /**
   * The page the conversation happened on.
   */
  page_url?: PageUrl;
  client_id?: ClientId;
  /**
   * Other captured fields, as text.
   */
  fields?: {
    [k: string]: string;
  };
  /**
   * What asked for the lead: `widget` (the agent's submit_lead, the default) or `callback` (the visitor asked for a person to call or write back).
   */
  source?: "widget" | "callback";
  /**
   * Why the visitor wants a person, in one line.
   */
  reason?: string;
  /**
   * For a callback: the conversation so far, its latest turns, for the person who calls back. Kept with the lead, and erased with the visitor's other data.
   *
   * @maxItems 30
   */
  turns?: CallbackTurn[];
};
/**
 * A page of the site, as the visitor's browser reports it. Only http(s) URLs are kept: a dashboard shows them as links, and a javascript: or data: URL there would run in the site owner's browser.
 */
export type PageUrl = string;
/**
 * The widget's own id for this write. The same signed body sent again in a session is a replay and records nothing new; two genuine writes with the same content differ by their client ids.
 */
export type ClientId = string;

/**
 * One turn of the conversation so far: what the visitor or the assistant said, or the name of a function the agent called (its arguments are not kept).
 */
export interface CallbackTurn {
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
   * When, ISO 8601.
   */
  at: string;
}
