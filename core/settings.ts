/**
 * Service settings, read once from the environment, validated, then frozen. A bad value stops
 * start-up with one line that names the variable.
 */
import path from "node:path";
import { parseOAuthClients } from "./oauth/oauth-client-settings.ts";
import { parsePlanMinutes, PLANS } from "./plans.ts";
import type { LogLevel, Settings } from "./settings-types.ts";
import { parseVoicePrices } from "./voice/prices.ts";
import { checkMailAddress, checkMailFrom, checkSmtpUrl } from "./mail/mail-settings.ts";
import {
  demoDestinations,
  mailSetting,
  oneOf,
  parseBoolean,
  parseSignup,
  parseBetween,
  parseMillis,
  parseCount,
  parseDatabaseUrl,
  parseMasterKey,
  parseOutboundAllow,
  parsePluginConfig,
  parseEmbeddings,
  parsePort,
  parseUrl,
  parseVoiceProvider,
  SettingsError,
} from "./settings-values.ts";

export { parseDatabaseUrl, SettingsError };
export type { DatabaseClient, DatabaseSettings } from "./settings-values.ts";

export type { LogLevel, Settings } from "./settings-types.ts";
export type { Plan } from "./plans.ts";

/** MAIL_FROM when unset: fine for the log mailer; a real relay wants an address of your domain. */
export const DEFAULT_MAIL_FROM = "Sitevoice <no-reply@localhost>";

const LOG_LEVELS: LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** SITEVOICE_CRAWL_MAX_PAGES: 500 by default, at most 10,000 (a crawl must end in hours). */
function parseCrawlPages(raw: string | undefined): number {
  const pages = parseCount("SITEVOICE_CRAWL_MAX_PAGES", raw, 500);
  if (pages > 10_000) {
    throw new SettingsError("SITEVOICE_CRAWL_MAX_PAGES", `must be at most 10000 (got "${raw}")`);
  }
  return pages;
}

/** Reads settings from `env` (default `process.env`); throws SettingsError on the first bad one. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Readonly<Settings> {
  const value = (name: string) => {
    const raw = env[name];
    return raw === undefined || raw.trim() === "" ? undefined : raw.trim();
  };
  const port = parsePort(value("PORT") ?? "8787");
  const dataDir = path.resolve(value("SITEVOICE_DATA_DIR") ?? "data");
  const redis = value("REDIS_URL");
  const masterKey = value("SITEVOICE_MASTER_KEY");
  const plugins = (value("SITEVOICE_PLUGINS") ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  for (const name of plugins) {
    if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name)) {
      throw new SettingsError("SITEVOICE_PLUGINS", `"${name}" is not an npm package name`);
    }
  }
  const pluginConfig = value("SITEVOICE_PLUGIN_CONFIG");
  const demo = parseBoolean(
    "SITEVOICE_DEMO",
    value("SITEVOICE_DEMO") ?? (value("DATABASE_URL") === undefined ? "on" : "off"),
  );
  // Unset: ./sites; set but empty: no start-up load.
  const sitesDir = env.SITEVOICE_SITES_DIR === undefined ? "sites" : value("SITEVOICE_SITES_DIR");
  const smtpUrl = value("SMTP_URL");
  const ownerEmail = value("SITEVOICE_OWNER_EMAIL");
  const defaultPlan = value("SITEVOICE_DEFAULT_PLAN");
  const publicBaseUrl = parseUrl(
    "PUBLIC_BASE_URL",
    value("PUBLIC_BASE_URL") ?? `http://localhost:${port}`,
    ["http:", "https:"],
  ).replace(/\/+$/, "");
  const settings: Settings = {
    port,
    host: value("HOST") ?? "0.0.0.0",
    dataDir,
    database: parseDatabaseUrl(value("DATABASE_URL"), dataDir),
    redisUrl: redis === undefined ? undefined : parseUrl("REDIS_URL", redis, ["redis:", "rediss:"]),
    masterKey: masterKey === undefined ? undefined : parseMasterKey(masterKey),
    oldMasterKeys: (value("SITEVOICE_OLD_MASTER_KEYS") ?? "")
      .split(",")
      .map((key) => key.trim())
      .filter((key) => key !== "")
      .map((key) => parseMasterKey(key, "SITEVOICE_OLD_MASTER_KEYS")),
    logLevel: oneOf("LOG_LEVEL", value("LOG_LEVEL") ?? "info", LOG_LEVELS),
    publicBaseUrl,
    plugins,
    pluginConfig: pluginConfig === undefined ? {} : parsePluginConfig(pluginConfig),
    oauthClients: parseOAuthClients(value("SITEVOICE_OAUTH_CLIENTS")),
    sitesDir: sitesDir === undefined ? undefined : path.resolve(sitesDir),
    defaultPlan:
      defaultPlan === undefined ? undefined : oneOf("SITEVOICE_DEFAULT_PLAN", defaultPlan, PLANS),
    trustedProxies: value("TRUSTED_PROXIES"),
    allowPrivateNetworks: parseBoolean(
      "SITEVOICE_ALLOW_PRIVATE_NETWORKS",
      value("SITEVOICE_ALLOW_PRIVATE_NETWORKS") ?? "false",
    ),
    outboundAllow: [
      ...parseOutboundAllow(value("SITEVOICE_OUTBOUND_ALLOW") ?? ""),
      ...(demo && port !== 0 ? demoDestinations(port) : []),
    ],
    demo,
    voiceProvider: parseVoiceProvider(value("SITEVOICE_VOICE_PROVIDER") ?? "openai"),
    embeddings: parseEmbeddings(value("SITEVOICE_EMBEDDINGS")),
    openai: {
      apiKey: value("OPENAI_API_KEY"),
      baseUrl: parseUrl("OPENAI_BASE_URL", value("OPENAI_BASE_URL") ?? "https://api.openai.com", [
        "http:",
        "https:",
      ]).replace(/\/+$/, ""),
      realtimeModel: value("OPENAI_REALTIME_MODEL") ?? "gpt-realtime",
    },
    nodeEnv: value("NODE_ENV") ?? "development",
    caches: {
      sites: parseCount("SITEVOICE_CACHE_SITES", value("SITEVOICE_CACHE_SITES"), 10_000),
      sessions: parseCount("SITEVOICE_CACHE_SESSIONS", value("SITEVOICE_CACHE_SESSIONS"), 10_000),
      adapters: parseCount("SITEVOICE_CACHE_ADAPTERS", value("SITEVOICE_CACHE_ADAPTERS"), 1_000),
      knowledgeMb: parseBetween(
        "SITEVOICE_CACHE_KNOWLEDGE_MB",
        value("SITEVOICE_CACHE_KNOWLEDGE_MB"),
        256,
        [1, 65_536],
      ),
    },
    mail: {
      smtpUrl: smtpUrl === undefined ? undefined : mailSetting("SMTP_URL", smtpUrl, checkSmtpUrl),
      from: mailSetting("MAIL_FROM", value("MAIL_FROM") ?? DEFAULT_MAIL_FROM, checkMailFrom),
    },
    ownerEmail:
      ownerEmail === undefined
        ? undefined
        : mailSetting("SITEVOICE_OWNER_EMAIL", ownerEmail, checkMailAddress),
    signup: parseSignup(value("SITEVOICE_SIGNUP") ?? "invite"),
    jobs: parseBoolean("SITEVOICE_JOBS", value("SITEVOICE_JOBS") ?? "on"),
    drainMs: parseMillis("SITEVOICE_DRAIN_MS", value("SITEVOICE_DRAIN_MS"), 3_000, 60_000),
    jobsPollMs: parseBetween(
      "SITEVOICE_JOBS_POLL_MS",
      value("SITEVOICE_JOBS_POLL_MS"),
      5_000,
      [100, 60_000],
    ),
    crawler: {
      // In normal form: it goes into a User-Agent header, where a raw space would end it.
      contactUrl: new URL(
        parseUrl(
          "SITEVOICE_CRAWLER_CONTACT_URL",
          value("SITEVOICE_CRAWLER_CONTACT_URL") ?? `${publicBaseUrl}/crawler`,
          ["http:", "https:"],
        ),
      ).href,
      maxPages: parseCrawlPages(value("SITEVOICE_CRAWL_MAX_PAGES")),
    },
    stream: {
      heartbeatMs: parseBetween(
        "SITEVOICE_STREAM_HEARTBEAT_MS",
        value("SITEVOICE_STREAM_HEARTBEAT_MS"),
        15_000,
        [100, 60_000],
      ),
    },
    planMinutes: parsePlanMinutes(value("SITEVOICE_PLAN_MINUTES")),
    voicePrices: parseVoicePrices(value("SITEVOICE_VOICE_PRICES")),
    calls: {
      checkMs: parseBetween(
        "SITEVOICE_CALL_CHECK_MS",
        value("SITEVOICE_CALL_CHECK_MS"),
        30_000,
        [100, 60_000],
      ),
    },
  };
  return Object.freeze(settings);
}
