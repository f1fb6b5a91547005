/**
 * `sitevoice secrets rotate`: re-seals every secret of every site and site version under the
 * primary master key, and recomputes the content hashes that key derives; then the signing secrets
 * of open widget sessions and the sealed fields of service events (a lead's update token, which a
 * webhook delivers later). Afterwards the old keys can leave SITEVOICE_OLD_MASTER_KEYS. Each row
 * is rewritten on its own (a site with its versions in one transaction), so a stop midway leaves
 * everything readable with the same key ring.
 */
import { mapSealedFields, SEALED_EVENT_TYPES } from "../events/event-bus.ts";
import { open, seal, type KeyRing } from "../security/secret-box.ts";
import type { Store } from "../store/store.ts";
import { contentHasher } from "./content-hash.ts";
import { openStoredSite, sealSiteSecrets } from "./site-secrets.ts";

export async function rotateSecrets(
  store: Store,
  ring: KeyRing,
): Promise<{ sites: number; versions: number; sessions: number; events: number }> {
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
  return { sites, versions, sessions, events };
}
