/**
 * Starts and stops the whole service: settings → store → plugins → app → HTTP server, and back
 * down in reverse order on shutdown.
 */
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import pino, { type Logger } from "pino";
import { createApp } from "./app.ts";
import { bootstrap, type Bootstrap } from "./bootstrap.ts";
import { PluginHost } from "./host/plugin-host.ts";
import { rateLimiterFactory } from "./http/rate-limiter.ts";
import { ApiKeyService } from "./keys/api-key-service.ts";
import { resolveMasterKey } from "./security/master-key.ts";
import { guardedFetch } from "./security/outbound-guard.ts";
import { keyRing } from "./security/secret-box.ts";
import type { Settings } from "./settings.ts";
import { SiteCache } from "./sites/site-cache.ts";
import { siteChangeChannel } from "./sites/site-change-channels.ts";
import { SiteService } from "./sites/site-service.ts";
import { loadSiteFolder } from "./sites/sync/load-sites.ts";
import { migrate, openDatabase } from "./store/database.ts";
import { Store } from "./store/store.ts";

export const BUILTIN_PLUGINS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "plugins",
);

export interface RunningService {
  server: http.Server;
  /** The bound port (useful with PORT=0 in tests). */
  port: number;
  store: Store;
  plugins: PluginHost;
  keys: ApiKeyService;
  sites: SiteService;
  boot: Bootstrap;
  logger: Logger;
  /**
   * Stops accepting, finishes open requests, closes plugins, the site cache (and its channel),
   * Redis and the store.
   */
  close(): Promise<void>;
}

export function createLogger(settings: Readonly<Settings>): Logger {
  return pino({
    level: settings.logLevel,
    redact: {
      paths: ["*.authorization", "*.password", "*.value", "*.secret", "*.connectionString"],
      censor: "[redacted]",
    },
  });
}

/** The Redis client of REDIS_URL, if set: fails fast rather than queueing while Redis is down. */
export function connectRedis(settings: Readonly<Settings>, logger: Logger): Redis | undefined {
  if (settings.redisUrl === undefined) return undefined;
  const redis = new Redis(settings.redisUrl, {
    lazyConnect: false,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: false,
  });
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis error"));
  return redis;
}

export async function startService(
  settings: Readonly<Settings>,
  logger = createLogger(settings),
): Promise<RunningService> {
  const store = new Store(openDatabase(settings.database));
  const redis = connectRedis(settings, logger);
  const plugins = new PluginHost({
    logger,
    fetch: guardedFetch({ allowPrivateNetworks: settings.allowPrivateNetworks }),
  });
  let cache: SiteCache | undefined;
  try {
    const applied = await migrate(store.db);
    if (applied.length > 0) logger.info({ migrations: applied }, "store migrated");
    const ring = keyRing(resolveMasterKey(settings, logger), settings.oldMasterKeys);
    await plugins.loadBuiltins(BUILTIN_PLUGINS_DIR);
    await plugins.loadPackages(settings.plugins);
    plugins.start();
    await plugins.startGlobal(settings.pluginConfig);
    const keys = new ApiKeyService(store);
    // Subscribed before the server listens, so a fresh instance hears every change it serves.
    const { channel, ttlMs } = await siteChangeChannel(settings, { redis, logger });
    cache = new SiteCache(channel, { ttlMs });
    const sites = new SiteService(store, ring, plugins, { cache });
    const boot = await bootstrap(store, keys, settings.defaultPlan);
    if (settings.sitesDir !== undefined) {
      await loadSiteFolder(settings.sitesDir, {
        sites,
        workspaceId: boot.workspaceId,
        plugins,
        logger,
      });
    }
    const app = createApp({
      settings,
      logger,
      store,
      plugins,
      keys,
      sites,
      limiters: rateLimiterFactory(redis),
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(settings.port, settings.host, () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : settings.port;
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await plugins.close();
        await sites.cache.close();
        redis?.disconnect();
        await store.close();
      })());
    return { server, port, store, plugins, keys, sites, boot, logger, close };
  } catch (error) {
    await plugins.close();
    await cache?.close();
    redis?.disconnect();
    await store.close();
    throw error;
  }
}
