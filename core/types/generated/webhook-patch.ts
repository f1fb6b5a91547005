/* Generated from schemas/webhook-patch.schema.json by npm run gen:types. Do not edit. */

/**
 * Where deliveries are POSTed: an absolute `https://` URL of at most 2048 characters, without `user:password@` or a `#fragment`. Plain `http://` only to `localhost`, `127.0.0.1` or `[::1]`, and only when the service allows private networks (SITEVOICE_ALLOW_PRIVATE_NETWORKS). A host that is, or resolves to, a private, loopback, link-local or cloud metadata address is refused (422) unless the operator allows it.
 */
export type WebhookUrl = string;
/**
 * An event type an endpoint may subscribe to. Shipped: `conversation.ended` (also subscribable by its other name, `session.ended`), `conversation.recording_ready`, `lead.captured`, `lead.updated`, `usage.threshold`, `adapter.error`. Reserved for events to come: `session.started`, `function.called`, `site.deleted`.
 */
export type WebhookEventType =
  | "conversation.ended"
  | "conversation.recording_ready"
  | "lead.captured"
  | "lead.updated"
  | "usage.threshold"
  | "adapter.error"
  | "session.started"
  | "function.called"
  | "site.deleted"
  | "session.ended";
/**
 * The event types delivered to the endpoint: 1 to 20 distinct names.
 *
 * @minItems 1
 * @maxItems 20
 */
export type WebhookEvents = WebhookEventType[];
/**
 * A note for people: what the endpoint is for (at most 500 characters); null clears it.
 */
export type WebhookDescription = null | string;
/**
 * Restricts deliveries to the events of these sites: 1 to 100 distinct sites of the workspace. Null, or left out when creating, delivers the events of every site of the workspace. A key limited to some sites must give a list of its own sites.
 */
export type WebhookSiteIds = null | WebhookSiteId[];
/**
 * The `site_id` of a site of the workspace.
 */
export type WebhookSiteId = string;

/**
 * Body of `PATCH /v1/webhooks/:id` (scope webhooks:write): one or more fields to change, each by the rules of webhook-create.schema.json; a field left out keeps its value. Changing `url` keeps the secret.
 */
export interface WebhookEndpointPatchRequest {
  url?: WebhookUrl;
  events?: WebhookEvents;
  description?: WebhookDescription;
  site_ids?: WebhookSiteIds;
  /**
   * `true` re-enables a disabled endpoint and clears its failure state (failures in a row, the pause a receiver asked for, when and why it was disabled); `false` disables it, recording when and `disabled by the API` as the reason. Disabled endpoints receive nothing.
   */
  enabled?: boolean;
}
