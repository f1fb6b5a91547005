/**
 * A side process of the query benchmark (forked by query.ts through sides.ts):
 * `node --import tsx bench/query-side.ts bare|express|service`.
 *
 * The service side makes the sites (a REST adapter in `querystring` mode on the backend) and one
 * session each, and hands them to the harness as its fixture; the floors get them in their
 * config and do the same work (query-work.ts).
 */
import { operatorPrincipal } from "../core/auth/principal.ts";
import { closeServer, listenFloor } from "./floors.ts";
import type { BenchSite, Collection, QueryFloorConfig } from "./query-work.ts";
import { queryWork } from "./query-work.ts";
import { startBenchService } from "./service.ts";
import { runSide, type RunningSide } from "./sides.ts";

export interface QueryServiceConfig {
  dataDir: string;
  backendUrl: string;
  collection: Collection;
  siteCount: number;
}

const QUERY_ROUTE = { method: "POST", path: "/v1/:siteId/query" } as const;

async function startService(config: QueryServiceConfig): Promise<RunningSide> {
  const service = await startBenchService(config.dataDir);
  const operator = operatorPrincipal(service.boot.workspaceId, "bench");
  const sites: BenchSite[] = [];
  for (let i = 0; i < config.siteCount; i++) {
    const siteId = `bench-${String(i).padStart(4, "0")}`;
    const domain = `shop-${i}.example`;
    await service.sites.create(operator, {
      site_id: siteId,
      business_name: `Bench Shop ${i}`,
      business_description: "A furniture shop",
      domain,
      adapter: {
        type: "rest",
        config: { baseUrl: config.backendUrl, queryMode: "querystring" },
        collections: { products: config.collection },
      },
    });
    const { session, signingSecret } = await service.sessions.create(
      { site_id: siteId, workspace_id: service.boot.workspaceId },
      { ip: "127.0.0.1", userAgent: "bench" },
    );
    sites.push({
      siteId,
      origin: `https://${domain}`,
      sessionId: session.id,
      secret: signingSecret,
    });
  }
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
