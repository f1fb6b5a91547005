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
import { clientErrorHandler } from "./http/client-error-handler.ts";
import { rateLimiterFactory } from "./http/rate-limiter.ts";
import { ApiKeyService } from "./keys/api-key-service.ts";
import { resolveMasterKey } from "./security/master-key.ts";
import { OutboundPolicy } from "./security/outbound-policy.ts";
import { keyRing } from "./security/secret-box.ts";
import type { Settings } from "./settings.ts";
import { SiteCache } from "./sites/site-cache.ts";
import { siteChangeChannel } from "./sites/site-change-channels.ts";
import { siteRulesOf, type SiteRules } from "./sites/site-rules.ts";
import { SiteService } from "./sites/site-service.ts";
import { EventBus } from "./events/event-bus.ts";
import { loadPromptTemplates } from "./intelligence/prompt.ts";
import { SessionService } from "./widget/session-service.ts";
import { WidgetService } from "./widget/widget-service.ts";
import { loadSiteFolder } from "./sites/sync/load-sites.ts";
import { migrate, openDatabase } from "./store/database.ts";
import { Store } from "./store/store.ts";

const SWEEP_EVERY_MS = 60_000;

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
  /** What a whole site must satisfy (shared with `sitevoice validate`). */
  rules: SiteRules;
  events: EventBus;
  sessions: SessionService;
  widget: WidgetService;
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

/** How long a graceful stop waits for open requests before it closes their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * A graceful stop for `server`: no new connections, and every answer from now on says
 * `Connection: close`, so keep-alive clients (browsers, load balancers) move to another
 * instance instead of holding this one open; `server.close` alone would keep serving them.
 * Connections still open after the grace period are closed.
 */
function drainer(server: http.Server): () => Promise<void> {
  let draining = false;
  const open = new Set<http.ServerResponse>();
  server.on("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
    open.add(res);
    res.on("close", () => open.delete(res));
  });
  return async () => {
    draining = true;
    for (const res of open) if (!res.headersSent) res.shouldKeepAlive = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    await closed;
    clearTimeout(force);
  };
}

export async function startService(
  settings: Readonly<Settings>,
  logger = createLogger(settings),
): Promise<RunningService> {
  const store = new Store(openDatabase(settings.database));
  const redis = connectRedis(settings, logger);
  const plugins = new PluginHost({
    logger,
    // Every connection a plugin makes (HTTP and the SQL adapters' TCP) passes this policy.
    outbound: OutboundPolicy.fromSettings(settings),
  });
  let cache: SiteCache | undefined;
  let events: EventBus | undefined;
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
    events = new EventBus(store, ring, { logger });
    // Parsed now, so a broken template or plugin stops start-up, not a visitor's session.
    const templates = loadPromptTemplates(undefined, plugins.globals("prompt-template"));
    const rules = siteRulesOf(plugins, {
      industries: templates.industries,
      voiceProvider: settings.voiceProvider,
    });
    const sites = new SiteService(store, ring, plugins, rules, { cache, events });
    const boot = await bootstrap(store, keys, settings.defaultPlan);
    if (settings.sitesDir !== undefined) {
      await loadSiteFolder(settings.sitesDir, {
        sites,
        workspaceId: boot.workspaceId,
        rules,
        logger,
      });
    }
    const sessions = new SessionService(store, ring);
    const widget = new WidgetService({
      store,
      sessions,
      events,
      plugins,
      settings,
      logger,
      templates,
    });
    const app = createApp({
      settings,
      logger,
      store,
      plugins,
      keys,
      sites,
      limiters: rateLimiterFactory(redis),
      sessions,
      widget,
      events,
    });
    const server = http.createServer(app);
    server.on("clientError", clientErrorHandler(logger));
    const drain = drainer(server);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(settings.port, settings.host, () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : settings.port;
    // Ends idle sessions (recording their session_end), forgets hashed IPs after an hour and
    // drops expired transcripts. Ending is conditional in the store, so with several instances
    // each session ends once.
    const sweeper = setInterval(() => {
      widget.sweep().catch((err: unknown) => logger.warn({ err }, "session sweep failed"));
    }, SWEEP_EVERY_MS);
    sweeper.unref();
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        clearInterval(sweeper);
        await drain();
        // Every acknowledged event is stored before the store closes.
        await events?.close();
        await plugins.close();
        await sites.cache.close();
        redis?.disconnect();
        await store.close();
      })());
    return {
      server,
      port,
      store,
      plugins,
      keys,
      sites,
      rules,
      events,
      sessions,
      widget,
      boot,
      logger,
      close,
    };
  } catch (error) {
    await events?.close();
    await plugins.close();
    await cache?.close();
    redis?.disconnect();
    await store.close();
    throw error;
  }
}
