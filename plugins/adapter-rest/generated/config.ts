/* Generated from plugins/adapter-rest/config.schema.json by npm run gen:types. Do not edit. */

/**
 * Config of the built-in REST adapter. It sends GET requests to `baseUrl` followed by a collection's `source`.
 */
export interface RestAdapterConfig {
  /**
   * Absolute URL of the customer API. Must use https://; plain http is accepted only for localhost and 127.0.0.1 (local development and tests).
   */
  baseUrl: string;
  /**
   * How requests to the customer API authenticate. Leave out for a public API.
   */
  auth?: {
    /**
     * `bearer` sends `Authorization: Bearer <value>`; `header` sends `<header>: <value>`.
     */
    type: "bearer" | "header";
    /**
     * The secret, or a placeholder such as an environment reference (`env:NAME`). Encrypted at rest and masked on every read.
     */
    value: string;
    /**
     * Name of the header carrying the value; required when `type` is `header`.
     */
    header?: string;
  };
  /**
   * `querystring` encodes filters, text query, sort and limit as query parameters; `client-filter` fetches the whole source and filters in memory (for sources under 500 items). `querystring` when left out.
   */
  queryMode?: "querystring" | "client-filter";
  /**
   * Extra headers sent on every request to the customer API.
   */
  headers?: {
    [k: string]: string;
  };
  /**
   * Per-request timeout in milliseconds; the query endpoint's 10 s limit applies in any case.
   */
  timeoutMs?: number;
}
