/**
 * A side process of the site-read benchmark (forked by sites.ts through sides.ts):
 * `node --import tsx bench/sites-side.ts bare|express|service`.
 *
 * The service side makes a site and 400 read keys and hands them, with the path of its SQLite
 * file, to the harness. The floors open that file with the service's own store code (knex over
 * better-sqlite3; the file is in WAL mode, so their reads never block the service nor it them)
 * and do the service's store reads: the key by the hash of the bearer value on every request
 * (unknown or revoked: 401) and the site by id, held 5 s as the service's site cache holds it
 * (missing or in another workspace: 404); and the rest of the
 * service's work: the key's scopes and sites (403), its 1,000-a-minute limit with RateLimit-*
 * headers (429), the config's secrets masked (the service's own maskSiteSecrets; the service
 * opens them first, once per cached row), version and times, the envelope and X-Request-Id.
 */
import { hashKey } from "../core/keys/api-key-service.ts";
import { maskSiteSecrets } from "../core/sites/site-secrets.ts";
import { openDatabase } from "../core/store/database.ts";
import type { SiteRow } from "../core/store/repos/sites-repo.ts";
import { Store } from "../core/store/store.ts";
import { FixedWindow, requestId } from "./floor-limits.ts";
import { closeServer, listenFloor, type Answer, type Work } from "./floors.ts";
import { startBenchService } from "./service.ts";
import { runSide, type RunningSide } from "./sides.ts";

export interface SitesServiceConfig {
  dataDir: string;
}

export interface SitesFixture {
  siteId: string;
  /** Bearer values of keys with `sites:read`, as many as keep each under its rate limit. */
  keys: string[];
  /** The service's SQLite file, for the floors. */
  dbFile: string;
}

export interface SitesFloorConfig {
  dbFile: string;
}

/** The per-key limit is 1,000 a minute: 400 keys leave room for 6,600 req/s. */
const KEY_COUNT = 400;

const ROUTE = { method: "GET", path: "/v1/sites/:id" } as const;

async function startService({ dataDir }: SitesServiceConfig): Promise<RunningSide> {
  const service = await startBenchService(dataDir);
  const dbFile = service.settings.database.filename;
  if (dbFile === undefined) throw new Error("the site-read benchmark needs an SQLite file");
  const workspaceId = service.boot.workspaceId;
  const admin = await service.keys.create(workspaceId, {
    name: "bench-admin",
    scopes: ["sites:read", "sites:write"],
    mode: "test",
  });
  const site = await service.sites.create(
    await service.keys.authenticate(`Bearer ${admin.value}`),
    {
      business_name: "Bench Dental",
      business_description: "A site to read",
      domain: "bench.example",
    },
  );
  const keys: string[] = [];
  for (let i = 0; i < KEY_COUNT; i++) {
    const key = await service.keys.create(workspaceId, {
      name: `bench-${i}`,
      scopes: ["sites:read"],
      mode: "test",
    });
    keys.push(key.value);
  }
  const fixture: SitesFixture = { siteId: site.site_id, keys, dbFile };
  return { server: service.server, fixture, close: service.close };
}

function sitesWork({ dbFile }: SitesFloorConfig): { work: Work; close(): void } {
  // The service's own store code on its file: the same knex queries the service runs.
  const store = new Store(
    openDatabase({ client: "sqlite", url: `sqlite:${dbFile}`, filename: dbFile }),
  );
  // As the service's site cache holds a row for 5 s (core/sites/site-cache.ts), and its codec
  // the row's masked view with it.
  const sites = new Map<string, { row: SiteRow | undefined; view?: unknown; until: number }>();
  const siteById = async (siteId: string) => {
    const now = Date.now();
    let held = sites.get(siteId);
    if (held === undefined || now >= held.until) {
      held = { row: await store.sites.get(siteId), until: now + 5_000 };
      sites.set(siteId, held);
    }
    return held;
  };
  const viewOf = (held: { row: SiteRow | undefined; view?: unknown }, site: SiteRow) => {
    held.view ??= {
      ...maskSiteSecrets(JSON.parse(site.config) as { adapter?: unknown }),
      version: site.version,
      created_at: new Date(site.created_at).toISOString(),
      updated_at: new Date(site.updated_at).toISOString(),
    };
    return held.view;
  };
  const perKey = new FixedWindow(1000, 60);
  const meta = (id: string) => ({ request_id: id, ts: new Date().toISOString() });
  const refuse = (id: string, status: number, message: string): Answer => ({
    status,
    headers: { "X-Request-Id": id },
    body: { success: false, error: { message }, meta: meta(id) },
  });
  const work: Work = async (params, headers) => {
    const id = requestId();
    const value = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
    const key = value === undefined ? undefined : await store.apiKeys.findByHash(hashKey(value));
    if (key === undefined || key.revoked_at !== null) return refuse(id, 401, "invalid API key");
    const limits = perKey.consume(key.id);
    if (limits === undefined) return refuse(id, 429, "rate limited");
    const siteId = params.id ?? "";
    const scopes = JSON.parse(key.scopes) as string[];
    const siteIds = key.site_ids === null ? undefined : (JSON.parse(key.site_ids) as string[]);
    if (!scopes.includes("sites:read")) return refuse(id, 403, "missing scope sites:read");
    if (siteIds !== undefined && !siteIds.includes(siteId)) return refuse(id, 403, "not this site");
    const held = await siteById(siteId);
    const site = held.row;
    if (site === undefined || site.workspace_id !== key.workspace_id) {
      return refuse(id, 404, "site not found");
    }
    return {
      status: 200,
      headers: { ...limits, "X-Request-Id": id },
      body: {
        success: true,
        data: viewOf(held, site),
        meta: { ...meta(id), version: site.version },
      },
    };
  };
  return { work, close: () => void store.close() };
}

runSide<SitesServiceConfig | SitesFloorConfig>(async (name, config) => {
  if (name === "service") return startService(config as SitesServiceConfig);
  const { work, close } = sitesWork(config as SitesFloorConfig);
  const server = await listenFloor(name, ROUTE, work);
  return {
    server,
    close: async () => {
      await closeServer(server);
      close();
    },
  };
});
