/**
 * `sitevoice secrets rotate`: re-seals every secret of every site and site version under the
 * primary master key, and recomputes the content hashes that key derives; then the signing secrets
 * of open widget sessions, the sealed fields of service events (a lead's update token, which a
 * webhook delivers later) and the secrets of webhook endpoints (the current one and the one a
 * rotation left signing beside it), the fingerprints user-data requests keep and the export
 * documents, the tokens of sites' OAuth connections, and each workspace's visitor-ID key (the key
 * itself unchanged, so visitors keep their IDs). Afterwards the old keys can leave
 * SITEVOICE_OLD_MASTER_KEYS.
 * Each row is rewritten on its own (a site with its versions in one transaction), so a stop midway
 * leaves everything readable with the same key ring.
 */
import { mapSealedFields, SEALED_EVENT_TYPES } from "../events/event-bus.ts";
import { open, seal, type KeyRing } from "../security/secret-box.ts";
import type { Store } from "../store/store.ts";
import { contentHasher } from "./content-hash.ts";
import { openStoredSite, sealSiteSecrets } from "./site-secrets.ts";

export async function rotateSecrets(
  store: Store,
  ring: KeyRing,
): Promise<{
  sites: number;
  versions: number;
  sessions: number;
  events: number;
  webhookEndpoints: number;
  userData: number;
  oauthConnections: number;
  workspaceSecrets: number;
}> {
  const hash = contentHasher(ring);
  const reseal = (config: string) => {
    const site = openStoredSite(config, ring);
    return { config: JSON.stringify(sealSiteSecrets(site, ring)), content_hash: hash(site) };
  };
  let sites = 0;
  let versions = 0;
  for (const siteId of await store.sites.allIds()) {
    await store.transaction(async (tx) => {
      const row = await tx.sites.get(siteId);
      if (row === undefined) return; // deleted meanwhile
      await tx.sites.reseal(siteId, reseal(row.config));
      for (const version of await tx.sites.listVersions(siteId)) {
        await tx.sites.resealVersion(siteId, version.version, reseal(version.config));
        versions++;
      }
      sites++;
    });
  }
  const reseal1 = (value: string) => seal(ring, open(ring, value));
  let sessions = 0;
  for (const session of await store.sessions.open()) {
    await store.sessions.reseal(session.id, reseal1(session.signing_secret));
    sessions++;
  }
  let events = 0;
  for (const event of await store.events.serviceOfTypes(SEALED_EVENT_TYPES)) {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    const resealed = mapSealedFields(event.type, data, reseal1);
    await store.events.resealService(event.id, JSON.stringify(resealed));
    events++;
  }
  const webhookEndpoints = await resealWebhookEndpoints(store, reseal1);
  const userData = await resealUserData(store, reseal1);
  let oauthConnections = 0;
  for (const row of await store.oauth.allSealed()) {
    // A refresh meanwhile wrote tokens sealed under the primary key already: nothing to do then.
    const resealed = await store.oauth.reseal(row.site_id, row.generation, {
      access_token: reseal1(row.access_token),
      refresh_token: row.refresh_token === null ? null : reseal1(row.refresh_token),
    });
    if (resealed) oauthConnections++;
  }
  let workspaceSecrets = 0;
  for (const row of await store.workspaceSecrets.allSealed()) {
    const { workspace_id: id, visitor_id_key: sealed } = row;
    if (await store.workspaceSecrets.reseal(id, sealed, reseal1(sealed))) workspaceSecrets++;
  }
  return {
    sites,
    versions,
    sessions,
    events,
    webhookEndpoints,
    userData,
    oauthConnections,
    workspaceSecrets,
  };
}

/**
 * Re-seals the fingerprints open user-data requests keep and the export documents: how many
 * values. A request finished or an export deleted meanwhile is skipped.
 */
async function resealUserData(store: Store, reseal: (sealed: string) => string): Promise<number> {
  const { requests, exports } = await store.userData.sealed();
  for (const request of requests) {
    await store.userData.resealSubject(request.id, reseal(request.subject));
  }
  for (const requestId of exports) {
    const stored = await store.userData.getExport(requestId);
    if (stored !== undefined) {
      await store.userData.resealExport(requestId, reseal(stored.document));
    }
  }
  return requests.length + exports.length;
}

/** Attempts per endpoint: another attempt follows only a rotation through the API meanwhile. */
const RESEAL_ATTEMPTS = 5;

/**
 * Re-seals both secrets of every webhook endpoint; the count of endpoints re-sealed. Each is
 * rewritten only if its secrets are still those read, so a secret rotated through the API
 * meanwhile is read again rather than lost.
 */
async function resealWebhookEndpoints(
  store: Store,
  reseal: (sealed: string) => string,
): Promise<number> {
  let count = 0;
  for (const id of await store.webhookEndpoints.allIds()) {
    for (let attempt = 1; ; attempt++) {
      const row = await store.webhookEndpoints.get(id);
      if (row === undefined) break; // deleted meanwhile
      const read = { secret: row.secret, previous_secret: row.previous_secret };
      const resealed = {
        secret: reseal(row.secret),
        previous_secret: row.previous_secret === null ? null : reseal(row.previous_secret),
      };
      if (await store.webhookEndpoints.reseal(id, read, resealed)) {
        count++;
        break;
      }
      if (attempt === RESEAL_ATTEMPTS) {
        throw new Error(`webhook endpoint ${id} kept changing; run secrets rotate again`);
      }
    }
  }
  return count;
}
