/* Generated from plugins/adapter-airtable/config.schema.json by npm run gen:types. Do not edit. */

/**
 * Config of the built-in Airtable adapter. It reads the tables of one Airtable base through Airtable's Web API, with the site's OAuth connection (no token here: the site connects its Airtable account from the dashboard).
 */
export interface AirtableAdapterConfig {
  /**
   * The Airtable base the collections are tables of: `app` and 14 letters or digits, as in the base's URL (https://airtable.com/appXXXXXXXXXXXXXX/…).
   */
  baseId: string;
  /**
   * Origin of Airtable's Web API; https://api.airtable.com when left out. Only for a proxy or a test's stand-in: must use https://, plain http is accepted only for localhost and 127.0.0.1.
   */
  apiUrl?: string;
  /**
   * Per-request timeout in milliseconds; the query endpoint's 10 s limit applies in any case.
   */
  timeoutMs?: number;
}
