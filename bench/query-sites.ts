/**
 * The sites of the signed query path, made through the service's own site and session services:
 * `bench-0000`, `bench-0001`, … each with a REST adapter in `querystring` mode on the benchmark's
 * backend, the domain `shop-<i>.example` (or another prefix), and one widget session whose
 * signing secret the harness signs the requests with. The query benchmark's service side makes
 * them in its own database (query-side.ts); the cluster benchmark in the one its instances share
 * (cluster-maker.ts).
 */
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { RunningService } from "../core/http/service.ts";
import type { BenchSite, Collection } from "./query-work.ts";

export interface QuerySitesConfig {
  backendUrl: string;
  collection: Collection;
  siteCount: number;
  /** The domains are `<prefix>-<i>.example`; `shop` unless set (the event sites use `shop`). */
  domainPrefix?: string;
}

/** Sites made at once (PostgreSQL round trips overlap; SQLite serializes them anyway). */
const MAKING_AT_ONCE = 16;

export async function makeQuerySites(
  service: RunningService,
  config: QuerySitesConfig,
): Promise<BenchSite[]> {
  const operator = operatorPrincipal(service.boot.workspaceId, "bench");
  const makeSite = async (i: number): Promise<BenchSite> => {
    const siteId = `bench-${String(i).padStart(4, "0")}`;
    const domain = `${config.domainPrefix ?? "shop"}-${i}.example`;
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
    return { siteId, origin: `https://${domain}`, sessionId: session.id, secret: signingSecret };
  };
  const sites: BenchSite[] = [];
  for (let from = 0; from < config.siteCount; from += MAKING_AT_ONCE) {
    const to = Math.min(config.siteCount, from + MAKING_AT_ONCE);
    sites.push(
      ...(await Promise.all(Array.from({ length: to - from }, (_, k) => makeSite(from + k)))),
    );
  }
  return sites;
}
