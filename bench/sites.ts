/**
 * `npm run bench -- sites`: the authenticated site read (`GET /v1/sites/:id`: API-key hash lookup,
 * rate limit, scope, store read, secret masking, envelope) through the service, against the
 * floors doing the same two store reads on the service's SQLite file (sites-side.ts).
 */
import path from "node:path";
import type { BenchSettings, Prepared } from "./rounds.ts";
import type { SitesFixture, SitesFloorConfig, SitesServiceConfig } from "./sites-side.ts";
import { startSide, type Side } from "./sides.ts";

const SIDE_ENTRY = new URL("./sites-side.ts", import.meta.url);

export async function prepareSites(_settings: BenchSettings, dir: string): Promise<Prepared> {
  const serviceConfig: SitesServiceConfig = { dataDir: path.join(dir, "service") };
  const service = await startSide<SitesFixture>(SIDE_ENTRY, "service", serviceConfig);
  const { siteId, keys, dbFile } = service.fixture;
  const floorConfig: SitesFloorConfig = { dbFile };
  const [bare, express] = await Promise.all([
    startSide(SIDE_ENTRY, "bare", floorConfig),
    startSide(SIDE_ENTRY, "express", floorConfig),
  ]);
  // The per-key limit (1,000 a minute) would turn most of the service's requests into 429s, so
  // every side gets the same requests spread over the keys: what is measured is the admitted path.
  const requests = keys.map((key) => ({
    method: "GET" as const,
    path: `/v1/sites/${siteId}`,
    headers: { Authorization: `Bearer ${key}` },
  }));
  const sides: Side[] = [bare, express, service];
  return {
    sides: { bare, express, service },
    load: { requests, needles: [`"site_id":"${siteId}"`] },
    about: `one site read with ${keys.length} API keys in turn; the floors read the service's SQLite file`,
    close: async () => {
      await Promise.all(sides.map((side) => side.close()));
    },
  };
}
