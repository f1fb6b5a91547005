/**
 * The one side of the event-ingestion benchmark (forked by events.ts through sides.ts):
 * `node --import tsx bench/events-side.ts service`. The service on SQLite in `dataDir`, or on the
 * PostgreSQL database `databaseUrl`; it makes `siteCount` sites with one widget session each
 * (events-service.ts) and hands them (with each session's signing secret) to the harness, which
 * signs the requests.
 */
import { makeEventSites, startEventsService, type EventsDatabaseConfig } from "./events-service.ts";
import { runSide } from "./sides.ts";

export interface EventsServiceConfig extends EventsDatabaseConfig {
  siteCount: number;
}

runSide<EventsServiceConfig>(async (name, config) => {
  if (name !== "service") throw new Error(`the events benchmark has no ${name} side`);
  const service = await startEventsService(config);
  const sites = await makeEventSites(service, config.siteCount);
  return { server: service.server, fixture: sites, close: service.close };
});
