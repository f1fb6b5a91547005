/**
 * The service of the benchmarks that send signed usage events (events-side.ts, analytics-side.ts):
 * started on the database the harness made (SQLite in `dataDir`, or `databaseUrl`), and the
 * sites it receives events for, made through its own site service, each with one widget session
 * from its session service, whose signing secret the harness signs the requests with.
 */
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { RunningService } from "../core/http/service.ts";
import { startBenchService } from "./service.ts";

export interface EventsDatabaseConfig {
  dataDir: string;
  /** Unset: embedded SQLite in `dataDir`. */
  databaseUrl?: string;
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

/** The service on the harness's database, with whatever else `env` sets. */
export function startEventsService(
  config: EventsDatabaseConfig,
  env: Record<string, string> = {},
): Promise<RunningService> {
  const database: Record<string, string> =
    config.databaseUrl === undefined ? {} : { DATABASE_URL: config.databaseUrl };
  return startBenchService(config.dataDir, { ...database, ...env });
}

/** `count` sites `ev-00000`, `ev-00001`, … with one session each. */
export async function makeEventSites(
  service: RunningService,
  count: number,
): Promise<EventsSite[]> {
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
  for (let from = 0; from < count; from += MAKING_AT_ONCE) {
    const to = Math.min(count, from + MAKING_AT_ONCE);
    const batch = Array.from({ length: to - from }, (_, k) => makeSite(from + k));
    sites.push(...(await Promise.all(batch)));
  }
  return sites;
}
