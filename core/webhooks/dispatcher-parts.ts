/**
 * The webhook dispatcher as the composition root builds it (kept apart so compose.ts stays one
 * page): see the function's comment.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { pluginNetwork } from "../host/plugin-network.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { OutboundPolicy } from "../security/outbound-policy.ts";
import type { KeyRing } from "../security/secret-box.ts";
import type { Store } from "../store/store.ts";
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
