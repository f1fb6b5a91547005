/**
 * Removing a deleted site's usage data: its raw usage events, quarter-hour rollups and day
 * rollups, which keep no foreign key to the site. The site's deletion marks it (in its own
 * transaction) and removes the data at once; a site made later with the same site_id finishes
 * whatever is left before it is made, and the daily retention job clears what a crash left. So
 * no workspace ever reads another's usage through a site_id taken again.
 */
import { inBatches } from "../store/in-batches.ts";
import { SITE_USAGE_TABLES, type SiteUsageTable } from "../store/repos/deleted-sites-repo.ts";
import type { Store } from "../store/store.ts";

/** Rows one statement deletes at most. */
const BATCH = 5_000;

export type PurgedUsage = Record<SiteUsageTable, number>;

/** Removes the usage data of the deleted site `siteId`, then its mark; how many rows of each. */
export async function purgeSiteUsage(
  store: Store,
  siteId: string,
  batch = BATCH,
): Promise<PurgedUsage> {
  const purged = {} as PurgedUsage;
  for (const table of Object.keys(SITE_USAGE_TABLES) as SiteUsageTable[]) {
    purged[table] = await inBatches(
      (limit) => store.deletedSites.deleteUsage(siteId, table, limit),
      batch,
    );
  }
  await store.deletedSites.forget(siteId);
  return purged;
}

/** Finishes every deleted site still marked (after a crash mid-removal); how many, and rows. */
export async function purgeDeletedSites(
  store: Store,
  batch = BATCH,
): Promise<{ sites: number; rows: number }> {
  let sites = 0;
  let rows = 0;
  for (;;) {
    const marked = await store.deletedSites.list(100);
    for (const siteId of marked) {
      const purged = await purgeSiteUsage(store, siteId, batch);
      sites += 1;
      rows += Object.values(purged).reduce((sum, count) => sum + count, 0);
    }
    if (marked.length < 100) return { sites, rows };
  }
}
