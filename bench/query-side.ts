/**
 * A side process of the query benchmark (forked by query.ts through sides.ts):
 * `node --import tsx bench/query-side.ts bare|express|service`.
 *
 * The service side makes the sites (a REST adapter in `querystring` mode on the backend) and one
 * session each (query-sites.ts), and hands them to the harness as its fixture; the floors get
 * them in their config and do the same work (query-work.ts).
 */
import { closeServer, listenFloor } from "./floors.ts";
import { makeQuerySites, type QuerySitesConfig } from "./query-sites.ts";
import type { QueryFloorConfig } from "./query-work.ts";
import { queryWork } from "./query-work.ts";
import { startBenchService } from "./service.ts";
import { runSide, type RunningSide } from "./sides.ts";

export interface QueryServiceConfig extends QuerySitesConfig {
  dataDir: string;
}

const QUERY_ROUTE = { method: "POST", path: "/v1/:siteId/query" } as const;

async function startService(config: QueryServiceConfig): Promise<RunningSide> {
  const service = await startBenchService(config.dataDir);
  const sites = await makeQuerySites(service, config);
  return { server: service.server, fixture: sites, close: service.close };
}

runSide<QueryServiceConfig | QueryFloorConfig>(async (name, config) => {
  if (name === "service") return startService(config as QueryServiceConfig);
  const { work, close } = queryWork(config as QueryFloorConfig);
  const server = await listenFloor(name, QUERY_ROUTE, work);
  return {
    server,
    close: async () => {
      await closeServer(server);
      close();
    },
  };
});
