/**
 * The composition root: the one place the service's parts are built, each with every dependency
 * it needs (none optional, so no part runs without, say, the event bus). `sitevoice serve`, every
 * CLI command and the tests build their parts here, so a command acts as the service does (a
 * site deleted by `sync --prune` is a `site.deleted` like one deleted through the API).
 */
import type { Redis } from "ioredis";
import { connectRedis } from "./redis-client.ts";
import type { Logger } from "pino";
import { createLogger } from "./logger.ts";
import type { EventBus } from "./events/event-bus.ts";
import { connectEventSinks } from "./events/event-sinks.ts";
import { PluginHost } from "./host/plugin-host.ts";
import type { CrawlService } from "./intelligence/crawl-service.ts";
import { composeIntelligence } from "./intelligence/compose-intelligence.ts";
import { rateLimiterFactory, type RateLimiterFactory } from "./limits/rate-limiter.ts";
import { loadPromptTemplates, type PromptTemplates } from "./intelligence/prompt-templates.ts";
import type { SiteIntelligenceService } from "./intelligence/site-intelligence-service.ts";
import type { KnowledgeService } from "./intelligence/knowledge/knowledge-service.ts";
import { ApiKeyService } from "./keys/api-key-service.ts";
import { AnalyticsService } from "./analytics/analytics-service.ts";
import type { UsageThresholds } from "./analytics/usage-thresholds.ts";
import { CallbackNotices } from "./leads/callback-notices.ts";
import { LeadService } from "./leads/lead-service.ts";
import { mailerOf, type Mailer } from "./mail/mailer.ts";
import { resolveMasterKey } from "./security/master-key.ts";
import { OutboundPolicy } from "./security/outbound-policy.ts";
import { keyRing, type KeyRing } from "./security/secret-box.ts";
import type { Settings } from "./settings.ts";
import { SiteCache } from "./sites/site-cache.ts";
import { siteChangeChannel } from "./sites/site-change-channels.ts";
import type { UsageStream } from "./analytics/usage-stream.ts";
import { composeUsage } from "./analytics/compose-usage.ts";
import { siteRulesOf, type SiteRules } from "./sites/site-rules.ts";
import { SiteService } from "./sites/site-service.ts";
import { migrate, openDatabase } from "./store/database.ts";
import { Store } from "./store/store.ts";
import { SessionService } from "./widget/session-service.ts";
import type { TokenService } from "./widget/token-service.ts";
import { TranscriptService } from "./widget/transcript-service.ts";
import type { CallService } from "./widget/call-service.ts";
import type { CallControlService } from "./voice/call-control-service.ts";
import type { SessionCosts } from "./voice/session-costs.ts";
import { composeVoice } from "./voice/compose-voice.ts";
import type { UsageService } from "./widget/usage-service.ts";
import type { WebhookDeliveryService } from "./webhooks/delivery-service.ts";
import { enqueueDeliveries } from "./webhooks/outbox.ts";
import { composeWebhooks } from "./webhooks/dispatcher-parts.ts";
import type { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import type { WebhookEndpointService } from "./webhooks/endpoint-service.ts";
import type { UserDataService } from "./user-data/user-data-service.ts";
import type { AccountService } from "./accounts/account-service.ts";
import { composeAccounts } from "./accounts/compose-accounts.ts";
import { composeOAuth } from "./oauth/compose-oauth.ts";
import type { OAuthService } from "./oauth/oauth-service.ts";
import { fileURLToPath } from "node:url";

export { createLogger };

export const BUILTIN_PLUGINS_DIR = fileURLToPath(new URL("../plugins/", import.meta.url));

/** The store and what is made of it alone: all a command on the store needs (migrate, keys). */
export interface StoreParts {
  settings: Readonly<Settings>;
  logger: Logger;
  store: Store;
  keys: ApiKeyService;
}

/** Opens the store (migrating it; closed again if that fails) and the API keys on it. */
export async function composeStore(
  settings: Readonly<Settings>,
  logger: Logger = createLogger(settings),
): Promise<StoreParts> {
  const store = new Store(openDatabase(settings.database, logger));
  try {
    const applied = await migrate(store.db);
    if (applied.length > 0) logger.info({ migrations: applied }, "store migrated");
  } catch (error) {
    await store.close();
    throw error;
  }
  return { settings, logger, store, keys: new ApiKeyService(store) };
}

/**
 * The key ring of secrets at rest: the master key (generated into the data folder on the
 * embedded default) and the old keys still read.
 */
export function composeKeyRing(settings: Readonly<Settings>, logger: Logger): KeyRing {
  return keyRing(resolveMasterKey(settings, logger), settings.oldMasterKeys);
}

/** The plugins of the installation and what is made of them. */
export interface InstalledPlugins {
  plugins: PluginHost;
  /** Parsed at start, so a broken template or plugin stops start-up, not a visitor's session. */
  templates: PromptTemplates;
  /** The site rules, shared by the API and `sitevoice validate`. */
  rules: SiteRules;
}

/**
 * The plugin host (built-in plugins and `SITEVOICE_PLUGINS`, every connection under the outbound
 * policy), its service-wide instances (`"all"`, or only the prompt templates for a command that
 * needs no more, such as `validate`), the prompt templates and the site rules.
 */
export async function composePlugins(
  settings: Readonly<Settings>,
  logger: Logger,
  globals: "all" | "prompt-templates" = "all",
): Promise<InstalledPlugins> {
  const plugins = new PluginHost({
    logger,
    outbound: OutboundPolicy.fromSettings(settings),
    instanceLimits: { maxScoped: settings.caches.adapters },
  });
  try {
    await plugins.loadBuiltins(BUILTIN_PLUGINS_DIR);
    await plugins.loadPackages(settings.plugins);
    plugins.start();
    await plugins.startGlobal(
      settings.pluginConfig,
      globals === "all" ? undefined : ["prompt-template"],
    );
    const templates = loadPromptTemplates(undefined, plugins.globals("prompt-template"));
    const rules = siteRulesOf(plugins, {
      industries: templates.industries,
      voiceProvider: settings.voiceProvider,
    });
    return { plugins, templates, rules };
  } catch (error) {
    await plugins.close();
    throw error;
  }
}

/** Everything the service is made of, below the HTTP layer. */
export interface ServiceParts extends InstalledPlugins, StoreParts {
  ring: KeyRing;
  redis: Redis | undefined;
  events: EventBus;
  limiters: RateLimiterFactory;
  sites: SiteService;
  /** The decoded sites held in memory (SiteService reads through it). */
  siteCache: SiteCache;
  sessions: SessionService;
  tokens: TokenService;
  usage: UsageService;
  transcripts: TranscriptService;
  /** The provider calls widget sessions report. */
  calls: CallService;
  /** The calls this instance controls from the server (core/voice/). */
  callControl: CallControlService;
  /** Controlled sessions' costs, settled a minute after they end. */
  sessionCosts: SessionCosts;
  leads: LeadService;
  /** The analytics reads. */
  analytics: AnalyticsService;
  /** `usage.threshold` events: checked after session ends are stored, or on demand. */
  usageThresholds: UsageThresholds;
  /** The site-intelligence answer and its shared cache; what voice sessions learn of the crawl. */
  intelligence: SiteIntelligenceService;
  /** The sites' knowledge (their pages' text, searchable), kept by the crawls. */
  knowledge: KnowledgeService;
  /** The workspace's webhook endpoints, as the API manages them. */
  webhooks: WebhookEndpointService;
  /** Outgoing mail: SMTP_URL's server, or the log without it. */
  mailer: Mailer;
  /** Sends the webhook outbox; started by the service where jobs run (`start`, `stop`). */
  webhookDispatcher: WebhookDispatcher;
  /** Test events, the delivery log and redelivery. */
  webhookDeliveries: WebhookDeliveryService;
  /** The live usage streams of this instance's subscribers. */
  usageStream: UsageStream;
  /** Crawls of sites: queued, run as jobs (once the service attaches its runner), listed. */
  crawls: CrawlService;
  /** Visitor data exports and erasures, run as jobs. */
  userData: UserDataService;
  /** Dashboard accounts: sign-up, sign-in, sessions. */
  accounts: AccountService;
  /** Sites' OAuth connections: the flow, their state, disconnect, and adapters' tokens. */
  oauth: OAuthService;
  /**
   * Stores every pending event, then closes the mailer (after the mails under way), the site
   * cache, plugins, Redis and the store.
   */
  close(): Promise<void>;
}

/**
 * Opens the store (migrating it), the key ring, the plugins, Redis and the site cache's change
 * channel, and builds the services on them. What fails half-way is closed again.
 */
export async function composeParts(
  settings: Readonly<Settings>,
  logger: Logger = createLogger(settings),
): Promise<ServiceParts> {
  const { store, keys } = await composeStore(settings, logger);
  const closers: (() => Promise<void> | void)[] = [() => store.close()];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    const ring = composeKeyRing(settings, logger);
    const redis = connectRedis(settings, logger);
    closers.push(() => redis?.disconnect());
    const installed = await composePlugins(settings, logger);
    closers.push(() => installed.plugins.close());
    // Subscribed before anything is served, so a fresh instance hears every change.
    const { channel, ttlMs } = await siteChangeChannel(settings, { redis, logger });
    const cache = new SiteCache(channel, { ttlMs, maxEntries: settings.caches.sites });
    closers.push(() => cache.close());
    // The operator's own relay, not a customer's destination: no outbound policy (mailer.ts).
    // Closed after the event bus, so what its last events mail still goes out.
    const mailer = mailerOf(settings, logger);
    closers.push(() => mailer.close());
    // Each service event's webhook deliveries are written in the transaction that records it.
    const { events, usageStream, usageThresholds } = await composeUsage(settings, {
      store,
      ring,
      redis,
      logger,
      closers,
      onRecorded: enqueueDeliveries,
    });
    connectEventSinks(events, installed.plugins.globals("event-sink"), logger);
    // One policy for what customers point webhooks at: checked at save and at every send.
    const outbound = OutboundPolicy.fromSettings(settings);
    const webhookParts = composeWebhooks(outbound, {
      store,
      ring,
      redis,
      mailer,
      logger,
      events,
      allowPrivateNetworks: settings.allowPrivateNetworks,
      closers,
    });
    const sites = new SiteService({ store, ring, rules: installed.rules, cache, events });
    // Closed before the mailer: the callback mails under way go out first.
    const callbacks = new CallbackNotices({ store, mailer, logger });
    closers.push(() => callbacks.settled());
    const sessions = new SessionService(store, ring, Date.now, {
      maxHeld: settings.caches.sessions,
    });
    const { intelligence, crawls, knowledge } = composeIntelligence(
      { store, sites, plugins: installed.plugins, templates: installed.templates },
      { settings, logger, outbound, channel, closers },
    );
    const parts: ServiceParts = {
      ...installed,
      settings,
      logger,
      store,
      ring,
      redis,
      events,
      limiters: rateLimiterFactory(redis),
      keys,
      sites,
      siteCache: cache,
      sessions,
      ...composeVoice(
        { store, events, sessions, sites, ...installed, intelligence, knowledge },
        { settings, logger, closers },
      ),
      transcripts: new TranscriptService({ store }),
      leads: new LeadService({ store, events, sites, callbacks }),
      analytics: new AnalyticsService({ store, sites }),
      usageStream,
      usageThresholds,
      intelligence,
      knowledge,
      ...webhookParts,
      mailer,
      crawls,
      ...composeAccounts(
        { store, ring, sites, mailer, ...installed },
        { settings, logger, closers },
      ),
      oauth: composeOAuth(
        { store, ring, events, sites, ...installed },
        { settings, logger, outbound },
      ),
      close: closeAll,
    };
    return parts;
  } catch (error) {
    await closeAll();
    throw error;
  }
}
