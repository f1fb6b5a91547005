/* Generated from schemas/webhook-create.schema.json by npm run gen:types. Do not edit. */

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
 * Body of `POST /v1/webhooks` (scope webhooks:write): where to deliver which events of the workspace. The endpoint's signing secret is made by the service and answered once, in the response to this request.
 */
export interface WebhookEndpointCreateRequest {
  url: WebhookUrl;
  events: WebhookEvents;
  description?: WebhookDescription;
  site_ids?: WebhookSiteIds;
}
