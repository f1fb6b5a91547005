/* Generated from schemas/usage-event-batch.schema.json by npm run gen:types. Do not edit. */

/**
 * The batch form of `POST /v1/:siteId/analytics/event` (signed by the widget): 1 to 100 usage events, each exactly a single usage event write, recorded in the order given. Each event counts toward the events rate limit.
 */
export interface UsageEventBatch {
  /**
   * The usage events, 1 to 100, in order.
   *
   * @minItems 1
   * @maxItems 100
   */
  events: UsageEventWrite[];
}
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
