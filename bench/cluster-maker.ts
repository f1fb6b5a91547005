/**
 * The cluster benchmark's setup, in a process of its own (forked by cluster.ts through sides.ts,
 * as its one "service" side): `node --import tsx bench/cluster-maker.ts service`. The service,
 * started once on the database the cluster will share, with the cluster's master key (so every
 * instance opens the sessions' sealed secrets) and without jobs, makes the query path's sites
 * (query-sites.ts) and the event sites (events-service.ts), one widget session each, and hands
 * them to the harness; the harness closes it before the cluster starts.
 *
 * A site's creation queues its first crawl, in the same transaction. Left queued, the cluster's
 * instances would dispatch them 100 every 15 s and crawl thousands of `.example` domains while
 * being measured; the benchmark measures the request paths of sites already crawled, so the maker
 * marks those crawls done (no pages) before it hands the sites over.
 */
import { makeEventSites, startEventsService, type EventsSite } from "./events-service.ts";
import { makeQuerySites } from "./query-sites.ts";
import type { BenchSite, Collection } from "./query-work.ts";
import { runSide } from "./sides.ts";

export interface ClusterMakerConfig {
  dataDir: string;
  databaseUrl: string;
  masterKey: string;
  backendUrl: string;
  collection: Collection;
  querySiteCount: number;
  eventSiteCount: number;
}

export interface ClusterFixture {
  query: BenchSite[];
  events: EventsSite[];
  /** The first crawls marked done. */
  crawlsSettled: number;
  /** How long making the sites took. */
  makingMs: number;
}

runSide<ClusterMakerConfig>(async (name, config) => {
  if (name !== "service") throw new Error(`the cluster benchmark's maker has no ${name} side`);
  const from = performance.now();
  const service = await startEventsService(config, {
    SITEVOICE_MASTER_KEY: config.masterKey,
    SITEVOICE_JOBS: "off",
  });
  const query = await makeQuerySites(service, {
    backendUrl: config.backendUrl,
    collection: config.collection,
    siteCount: config.querySiteCount,
    // Domains are unique in a workspace: the event sites have `shop-<i>.example`.
    domainPrefix: "query-shop",
  });
  const events = await makeEventSites(service, config.eventSiteCount);
  const crawlsSettled = await service.store.db.knex("crawls").where({ status: "queued" }).update({
    status: "done",
    active_site_id: null,
    finished_at: Date.now(),
    page_count: 0,
    pages: "[]",
    errors: "[]",
  });
  const fixture: ClusterFixture = {
    query,
    events,
    crawlsSettled,
    makingMs: Math.round(performance.now() - from),
  };
  return { server: service.server, fixture, close: service.close };
});
