/**
 * A webhook endpoint written straight into the store, for tests of delivery that need no API
 * round trip (the API itself is tested in webhooks-api.test.ts).
 */
import { seal, type KeyRing } from "../../core/security/secret-box.ts";
import { newId } from "../../core/store/ids.ts";
import type { WebhookEndpointRow } from "../../core/store/repos/webhook-endpoints-repo.ts";
import type { Store } from "../../core/store/store.ts";
import { newWebhookSecret } from "../../core/webhooks/webhook-signatures.ts";

export async function addEndpoint(
  store: Store,
  ring: KeyRing,
  options: { workspaceId: string; url: string; events: string[]; siteIds?: string[]; now?: number },
): Promise<{ id: string; secret: string }> {
  const secret = newWebhookSecret();
  const at = options.now ?? Date.now();
  const row: WebhookEndpointRow = {
    id: newId("wh"),
    workspace_id: options.workspaceId,
    url: options.url,
    description: null,
    events: JSON.stringify(options.events),
    site_ids: options.siteIds === undefined ? null : JSON.stringify(options.siteIds),
    enabled: true,
    secret: seal(ring, secret),
    previous_secret: null,
    previous_secret_until: null,
    consecutive_failures: 0,
    failing_since: null,
    disabled_at: null,
    disabled_reason: null,
    paused_until: null,
    created_at: at,
    updated_at: at,
  };
  await store.db.knex("webhook_endpoints").insert(row);
  return { id: row.id, secret };
}
