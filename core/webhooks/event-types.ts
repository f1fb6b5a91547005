/**
 * The event types an endpoint may subscribe to (the API reference, "Event types", shipped and reserved), and
 * how a recorded event finds its subscribers: `session.ended` is the name the API reference's examples use
 * for `conversation.ended`, so a subscription to either receives it (the API reference, "Webhooks").
 * `webhook.test` is never subscribed to; it goes only to the endpoint a test is asked of.
 */
export const SHIPPED_EVENT_TYPES = [
  "conversation.ended",
  "conversation.recording_ready",
  "lead.captured",
  "lead.updated",
  "usage.threshold",
  "adapter.error",
] as const;

export const RESERVED_EVENT_TYPES = ["session.started", "function.called", "site.deleted"] as const;

/** Every name a subscription may list. */
export const SUBSCRIBABLE_EVENT_TYPES: readonly string[] = [
  ...SHIPPED_EVENT_TYPES,
  ...RESERVED_EVENT_TYPES,
  "session.ended",
];

/** The synthetic event of `POST /v1/webhooks/:id/test`. */
export const TEST_EVENT_TYPE = "webhook.test";

/** The other name a subscription may give an event type by. */
const ALIASES: ReadonlyMap<string, string> = new Map([["conversation.ended", "session.ended"]]);

/** Whether an endpoint subscribed to `subscribed` receives a recorded event of `type`. */
export function subscribesTo(subscribed: readonly string[], type: string): boolean {
  if (subscribed.includes(type)) return true;
  const alias = ALIASES.get(type);
  return alias !== undefined && subscribed.includes(alias);
}
