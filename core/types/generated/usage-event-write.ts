/* Generated from schemas/usage-event-write.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/:siteId/analytics/event` (signed by the widget). `duration_seconds` is computed by the service on `session_end`; `metadata.client_event_id` makes a retried write count once.
 */
export interface UsageEventWrite {
  /**
   * The kind of usage event.
   */
  type: "session_start" | "session_end" | "function_call" | "db_query" | "image_description";
  /**
   * Only on function_call, where it is required.
   */
  function_name?: string;
  /**
   * Free-form; `client_event_id` (a string of at most 100 characters) identifies the write for retries.
   */
  metadata?: {
    /**
     * The widget's own id for the event.
     */
    client_event_id?: string;
    [k: string]: unknown;
  };
}
