/**
 * The one side of the event-ingestion benchmark (forked by events.ts through sides.ts):
 * `node --import tsx bench/events-side.ts service`. The service on SQLite in `dataDir`, or on the
 * PostgreSQL database `databaseUrl`; it makes `siteCount` sites through its own site service and
 * one widget session each through its session service, and hands them (with each session's
 * signing secret) to the harness, which signs the requests.
 */
import { operatorPrincipal } from "../core/auth/principal.ts";
import { startBenchService } from "./service.ts";
import { runSide } from "./sides.ts";

export interface EventsServiceConfig {
  dataDir: string;
  /** Unset: embedded SQLite in `dataDir`. */
  databaseUrl?: string;
  siteCount: number;
}

export interface EventsSite {
  siteId: string;
  /** `https://<domain>`: the Origin every request of the site sends. */
  origin: string;
  sessionId: string;
  /** The session's signing secret: HMAC-SHA256 over the raw body. */
  secret: string;
}

/** Sites made at once (PostgreSQL round trips overlap; SQLite serializes them anyway). */
const MAKING_AT_ONCE = 16;

runSide<EventsServiceConfig>(async (name, config) => {
  if (name !== "service") throw new Error(`the events benchmark has no ${name} side`);
  const env: Record<string, string> =
    config.databaseUrl === undefined ? {} : { DATABASE_URL: config.databaseUrl };
  const service = await startBenchService(config.dataDir, env);
  const workspaceId = service.boot.workspaceId;
  const operator = operatorPrincipal(workspaceId, "bench");
  const makeSite = async (i: number): Promise<EventsSite> => {
    const siteId = `ev-${String(i).padStart(5, "0")}`;
    const domain = `shop-${i}.example`;
    await service.sites.create(operator, {
      site_id: siteId,
      business_name: `Bench Shop ${i}`,
      business_description: "A shop whose widget reports usage events",
      domain,
    });
    const { session, signingSecret } = await service.sessions.create(
      { site_id: siteId, workspace_id: workspaceId },
      { ip: "127.0.0.1", userAgent: "bench" },
    );
    return { siteId, origin: `https://${domain}`, sessionId: session.id, secret: signingSecret };
  };
  const sites: EventsSite[] = [];
  for (let from = 0; from < config.siteCount; from += MAKING_AT_ONCE) {
    const to = Math.min(config.siteCount, from + MAKING_AT_ONCE);
    const batch = Array.from({ length: to - from }, (_, k) => makeSite(from + k));
    sites.push(...(await Promise.all(batch)));
  }
  return { server: service.server, fixture: sites, close: service.close };
});
