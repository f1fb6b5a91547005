/**
 * `sitevoice secrets rotate`: re-seals every secret in the store under the current master key,
 * after which the old keys can be dropped.
 */
import { composeKeyRing } from "../compose.ts";
import type { Settings } from "../settings.ts";
import { rotateSecrets } from "../sites/secret-rotation.ts";
import { withStore } from "./command-parts.ts";

export async function secretsRotate(settings: Readonly<Settings>) {
  return withStore(settings, async ({ store, logger }) => {
    const ring = composeKeyRing(settings, logger);
    const done = await rotateSecrets(store, ring);
    console.log(
      `re-sealed ${done.sites} sites, ${done.versions} versions, ${done.sessions} open ` +
        `sessions, ${done.events} events, ${done.webhookEndpoints} webhook endpoints, ` +
        `${done.userData} user-data values, ${done.oauthConnections} OAuth connections and ` +
        `${done.workspaceSecrets} workspace visitor-ID keys ` +
        `under key ${ring.primaryId}`,
    );
  });
}
