/**
 * The webhook parts as the composition root builds them (kept apart so compose.ts stays one
 * page): the dispatcher (see its function's comment), woken by each service event, and the
 * endpoint and delivery services.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { pluginNetwork } from "../host/plugin-network.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { OutboundPolicy } from "../security/outbound-policy.ts";
import type { KeyRing } from "../security/secret-box.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { Store } from "../store/store.ts";
import { WebhookDeliveryService } from "./delivery-service.ts";
import { WebhookEndpointService } from "./endpoint-service.ts";
import { Delivery } from "./delivery.ts";
import { memoryDeliveryRate, redisDeliveryRate } from "./delivery-rate.ts";
import { WebhookDispatcher } from "./dispatcher.ts";
import { mailedNotice } from "./endpoint-health.ts";

/**
 * The webhook dispatcher: its own guarded connections (customers choose these URLs; `close` ends
 * them), the rate limit shared through Redis when there is one, the owner told by mail when an
 * endpoint is disabled.
 */
export function webhookDispatcher(
  outbound: OutboundPolicy,
  parts: { store: Store; ring: KeyRing; redis: Redis | undefined; mailer: Mailer; logger: Logger },
): { dispatcher: WebhookDispatcher; close: () => Promise<void> } {
  const { store, ring, redis, mailer, logger } = parts;
  const network = pluginNetwork(outbound);
  const delivery = new Delivery({
    store,
    ring,
    request: network.request,
    rate: redis === undefined ? memoryDeliveryRate() : redisDeliveryRate(redis, logger),
    notice: mailedNotice(store, mailer, logger),
    logger,
  });
  return {
    dispatcher: new WebhookDispatcher(store, delivery, logger),
    close: async () => network.close?.(),
  };
}

export interface WebhookParts {
  webhooks: WebhookEndpointService;
  webhookDispatcher: WebhookDispatcher;
  webhookDeliveries: WebhookDeliveryService;
}

/**
 * The dispatcher, woken by each service event, and the services over endpoints and deliveries;
 * `closers` stops the dispatcher (its sends under way recorded) before its connections close.
 */
export function composeWebhooks(
  outbound: OutboundPolicy,
  parts: Parameters<typeof webhookDispatcher>[1] & {
    events: EventBus;
    allowPrivateNetworks: boolean;
    closers: (() => Promise<void> | void)[];
  },
): WebhookParts {
  const { store, ring, events, closers } = parts;
  const { dispatcher, close } = webhookDispatcher(outbound, parts);
  closers.push(close);
  // Stopped before the store closes: the sends under way are recorded first.
  closers.push(() => dispatcher.stop());
  events.subscribe((bused) => {
    if (bused.kind === "service") dispatcher.wake();
  });
  return {
    webhooks: new WebhookEndpointService({
      store,
      ring,
      outbound,
      allowPrivateNetworks: parts.allowPrivateNetworks,
    }),
    webhookDispatcher: dispatcher,
    webhookDeliveries: new WebhookDeliveryService({
      store,
      events,
      wake: () => dispatcher.wake(),
    }),
  };
}
