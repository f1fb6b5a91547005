/**
 * A webhook endpoint written straight into the store, for tests of delivery that need no API
 * round trip (the API itself is tested in webhooks-api.test.ts).
 */
import { seal, type KeyRing } from "../../core/security/secret-box.ts";
import type { Store } from "../../core/store/store.ts";
import { newEndpointRow } from "../../core/webhooks/endpoint-service.ts";
import { newWebhookSecret } from "../../core/webhooks/webhook-signatures.ts";

export async function addEndpoint(
  store: Store,
  ring: KeyRing,
  options: { workspaceId: string; url: string; events: string[]; siteIds?: string[]; now?: number },
): Promise<{ id: string; secret: string }> {
  const secret = newWebhookSecret();
  const row = newEndpointRow({
    workspaceId: options.workspaceId,
    url: options.url,
    description: null,
    events: options.events,
    siteIds: options.siteIds ?? null,
    sealedSecret: seal(ring, secret),
    at: options.now ?? Date.now(),
  });
  await store.db.knex("webhook_endpoints").insert(row);
  return { id: row.id, secret };
}
