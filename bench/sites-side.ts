/**
 * A side process of the site-read benchmark (forked by sites.ts through sides.ts):
 * `node --import tsx bench/sites-side.ts bare|express|service`.
 *
 * The service side makes a site and 400 read keys and hands them, with the path of its SQLite
 * file, to the harness. The floors open that file read-only (better-sqlite3; the service writes
 * it in WAL mode, so their reads never block it nor it them) and do, with two prepared
 * statements, the service's two store reads: the key by the hash of the bearer value (unknown or
 * revoked: 401) and the site by id (missing or in another workspace: 404); and the rest of the
 * service's work: the key's scopes and sites (403), its 1,000-a-minute limit with RateLimit-*
 * headers (429), the config's secrets masked (the service's own maskSiteSecrets; the service
 * opens them first, once per cached row), version and times, the envelope and X-Request-Id.
 */
import Database from "better-sqlite3";
import { hashKey } from "../core/keys/api-key-service.ts";
import { maskSiteSecrets } from "../core/sites/site-secrets.ts";
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

interface KeyRow {
  id: string;
  workspace_id: string;
  revoked_at: number | null;
  scopes: string;
  site_ids: string | null;
}

interface SiteRow {
  workspace_id: string;
  config: string;
  version: number;
  created_at: number;
  updated_at: number;
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
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  const keyByHash = db.prepare<[string], KeyRow>(
    "select id, workspace_id, revoked_at, scopes, site_ids from api_keys where key_hash = ?",
  );
  const siteById = db.prepare<[string], SiteRow>(
    "select workspace_id, config, version, created_at, updated_at from sites where site_id = ?",
  );
  // The service's per-key limit (core/http/api-key-auth.ts).
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
    const key = value === undefined ? undefined : keyByHash.get(hashKey(value));
    if (key === undefined || key.revoked_at !== null) return refuse(id, 401, "invalid API key");
    const limits = perKey.consume(key.id);
    if (limits === undefined) return refuse(id, 429, "rate limited");
    const siteId = params.id ?? "";
    const scopes = JSON.parse(key.scopes) as string[];
    const siteIds = key.site_ids === null ? undefined : (JSON.parse(key.site_ids) as string[]);
    if (!scopes.includes("sites:read")) return refuse(id, 403, "missing scope sites:read");
    if (siteIds !== undefined && !siteIds.includes(siteId)) return refuse(id, 403, "not this site");
    const site = siteById.get(siteId);
    if (site === undefined || site.workspace_id !== key.workspace_id) {
      return refuse(id, 404, "site not found");
    }
    const config = maskSiteSecrets(JSON.parse(site.config) as { adapter?: unknown });
    return {
      status: 200,
      headers: { ...limits, "X-Request-Id": id },
      body: {
        success: true,
        data: {
          ...config,
          version: site.version,
          created_at: new Date(site.created_at).toISOString(),
          updated_at: new Date(site.updated_at).toISOString(),
        },
        meta: { ...meta(id), version: site.version },
      },
    };
  };
  return { work, close: () => db.close() };
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
