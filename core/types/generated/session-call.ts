/* Generated from schemas/session-call.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/:siteId/session/call` (signed by the session): the voice provider's id for the call the widget has just connected (the last segment of the `Location` of the provider's SDP answer).
 */
export interface CallReport {
  /**
   * The provider's call id: 1 to 200 letters, digits, `_` or `-`.
   */
  call_id: string;
}
