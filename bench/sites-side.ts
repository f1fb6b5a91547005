/**
 * A side process of the site-read benchmark (forked by sites.ts through sides.ts):
 * `node --import tsx bench/sites-side.ts bare|express|service`.
 *
 * The service side makes a site and 400 read keys and hands them, with the path of its SQLite
 * file, to the harness. The floors open that file read-only (better-sqlite3; the service writes
 * it in WAL mode, so their reads never block it nor it them) and do, with two prepared
 * statements, the service's two store reads: the key by the hash of the bearer value (unknown or
 * revoked: 401) and the site by id (missing or in another workspace: 404). They answer the
 * stored config in the envelope; unlike the service they check no scope, count no rate limit,
 * open and mask no secrets.
 */
import Database from "better-sqlite3";
import crypto from "node:crypto";
import { hashKey } from "../core/keys/api-key-service.ts";
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
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  const keyByHash = db.prepare<[string], { workspace_id: string; revoked_at: number | null }>(
    "select workspace_id, revoked_at from api_keys where key_hash = ?",
  );
  const siteById = db.prepare<[string], { workspace_id: string; config: string; version: number }>(
    "select workspace_id, config, version from sites where site_id = ?",
  );
  const meta = () => ({ request_id: crypto.randomUUID(), ts: new Date().toISOString() });
  const refuse = (status: number, message: string): Answer => ({
    status,
    body: { success: false, error: { message }, meta: meta() },
  });
  const work: Work = async (params, headers) => {
    const value = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
    const key = value === undefined ? undefined : keyByHash.get(hashKey(value));
    if (key === undefined || key.revoked_at !== null) return refuse(401, "invalid API key");
    const site = siteById.get(params.id ?? "");
    if (site === undefined || site.workspace_id !== key.workspace_id) {
      return refuse(404, "site not found");
    }
    return {
      status: 200,
      body: {
        success: true,
        data: JSON.parse(site.config) as unknown,
        meta: { ...meta(), version: site.version },
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
