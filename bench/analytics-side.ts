/**
 * The one side of the analytics benchmark (forked by analytics.ts through sides.ts):
 * `node --import tsx bench/analytics-side.ts service`. The service on the database the harness
 * has loaded (analytics-load.ts): it makes the loaded sites (their events are already stored,
 * and usage events keep no foreign key to sites), in UTC; `readKeys` API keys with
 * `analytics:read` (one per measured series, so none nears the per-key limit of 1,000 a
 * minute) and one with `sites:write` to change the busy site's time zone; and the sites with one
 * session each that the ingestion run sends signed events to (events-service.ts). Jobs are off.
 */
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  makeEventSites,
  startEventsService,
  type EventsDatabaseConfig,
  type EventsSite,
} from "./events-service.ts";
import { runSide } from "./sides.ts";

export interface AnalyticsServiceConfig extends EventsDatabaseConfig {
  loadedSiteIds: string[];
  readKeys: number;
  ingestionSites: number;
}

export interface AnalyticsFixture {
  /** Bearer values with `analytics:read`. */
  readKeys: string[];
  /** A bearer value with `sites:write`. */
  writeKey: string;
  ingestion: EventsSite[];
}

runSide<AnalyticsServiceConfig>(async (name, config) => {
  if (name !== "service") throw new Error(`the analytics benchmark has no ${name} side`);
  // Without jobs: at start they would plan and dispatch crawls for the 1,005 sites made below,
  // which on SQLite holds its one connection for about 600 ms once, in the first series measured
  // (RESULTS.md); the summaries' own cost is what this measures. The first summary of each zone
  // keeps the days the hourly job otherwise keeps.
  const service = await startEventsService(config, { SITEVOICE_JOBS: "off" });
  const workspaceId = service.boot.workspaceId;
  const operator = operatorPrincipal(workspaceId, "bench");
  for (const siteId of config.loadedSiteIds) {
    await service.sites.create(operator, {
      site_id: siteId,
      business_name: `Bench ${siteId}`,
      business_description: "A site with a year of usage events",
      domain: `${siteId}.example`,
      timezone: "UTC",
    });
  }
  const key = async (scope: "analytics:read" | "sites:write", n: number) => {
    const made = await service.keys.create(workspaceId, {
      name: `bench-${scope}-${n}`,
      scopes: [scope],
      mode: "test",
    });
    return made.value;
  };
  const readKeys: string[] = [];
  for (let n = 0; n < config.readKeys; n++) readKeys.push(await key("analytics:read", n));
  const fixture: AnalyticsFixture = {
    readKeys,
    writeKey: await key("sites:write", 0),
    ingestion: await makeEventSites(service, config.ingestionSites),
  };
  return { server: service.server, fixture, close: service.close };
});
