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
  page_url?: string;
  /**
   * Other captured fields, as text.
   */
  fields?: {
    [k: string]: string;
  };
};
