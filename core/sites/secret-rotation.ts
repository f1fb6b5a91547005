/**
 * `sitevoice secrets rotate`: re-seals every secret of every site and site version under the
 * primary master key, and recomputes the content hashes that key derives. Afterwards the old keys
 * can leave SITEVOICE_OLD_MASTER_KEYS. Each site is rewritten in one transaction, so a stop midway
 * leaves every site readable with the same key ring.
 */
import type { KeyRing } from "../security/secret-box.ts";
import type { Store } from "../store/store.ts";
import { contentHasher } from "./content-hash.ts";
import { openStoredSite, sealSiteSecrets } from "./site-secrets.ts";

export async function rotateSecrets(
  store: Store,
  ring: KeyRing,
): Promise<{ sites: number; versions: number }> {
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
  return { sites, versions };
}
