/* Generated from schemas/lead-create.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/:siteId/leads` (signed by the widget, from the agent's `submit_lead`). An email or a phone is required.
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
};
/**
 * A page of the site, as the visitor's browser reports it. Only http(s) URLs are kept: a dashboard shows them as links, and a javascript: or data: URL there would run in the site owner's browser.
 */
export type PageUrl = string;
/**
 * The widget's own id for this write. The same signed body sent again in a session is a replay and records nothing new; two genuine writes with the same content differ by their client ids.
 */
export type ClientId = string;
