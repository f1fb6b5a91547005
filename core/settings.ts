/**
 * Service settings, read once from the environment, validated, then frozen. A bad value stops
 * start-up with one line that names the variable.
 */
import path from "node:path";
import { parsePlanMinutes, PLANS, type Plan } from "./plans.ts";
import { parseVoicePrices, type VoicePrices } from "./voice/prices.ts";
import { checkMailAddress, checkMailFrom, checkSmtpUrl } from "./mail/mail-settings.ts";
import type { OutboundAllowEntry } from "./security/outbound-allow-list.ts";
import {
  demoDestinations,
  mailSetting,
  oneOf,
  parseBoolean,
  parseSignup,
  parseBetween,
  parseCount,
  parseDatabaseUrl,
  parseMasterKey,
  parseOutboundAllow,
  parsePluginConfig,
  parsePort,
  parseUrl,
  parseVoiceProvider,
  SettingsError,
  type DatabaseSettings,
} from "./settings-values.ts";

export { parseDatabaseUrl, SettingsError };
export type { DatabaseClient, DatabaseSettings } from "./settings-values.ts";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type { Plan } from "./plans.ts";

export interface Settings {
  /** TCP port of the HTTP server; 0 picks a free one. */
  port: number;
  /** Interface to bind. */
  host: string;
  /** Folder for the embedded database and the generated master key. */
  dataDir: string;
  /** Where the store lives; `sqlite` resolves to a file (or `:memory:`). */
  database: DatabaseSettings;
  /** Redis for shared rate limits, cache invalidation and the live stream; unset = in process. */
  redisUrl?: string;
  /** 32-byte key for secrets at rest; unset = generated into dataDir with a warning. */
  masterKey?: Buffer;
  /** Earlier master keys, still able to open secrets until `sitevoice secrets rotate` re-seals. */
  oldMasterKeys: Buffer[];
  logLevel: LogLevel;
  /** The address the service is reached at, used in links it hands out. */
  publicBaseUrl: string;
  /** npm package names of extra plugins to load. */
  plugins: string[];
  /** Config of service-wide plugins (event sinks, auth, prompt templates), by plugin name. */
  pluginConfig: Record<string, unknown>;
  /** Site files loaded into the default workspace at start-up; undefined when turned off. */
  sitesDir?: string;
  /** The plan of the workspace `npm start` creates on first start. */
  defaultPlan: Plan;
  /** Express `trust proxy` value; unset = the client IP is the socket's. */
  trustedProxies?: string;
  /**
   * Lets outbound connections (REST adapter, SQL adapters, crawler, webhooks) reach private,
   * loopback and link-local addresses; off by default, since site configs choose those
   * destinations (SSRF). Cloud metadata addresses stay refused.
   */
  allowPrivateNetworks: boolean;
  /**
   * SITEVOICE_OUTBOUND_ALLOW: private destinations allowed one by one (host names, addresses,
   * CIDRs, each optionally with a port), for a database on the internal network without opening
   * every private address. Empty by default.
   */
  outboundAllow: OutboundAllowEntry[];
  /**
   * SITEVOICE_DEMO: the example backend under `/example-api/`, which the example sites of
   * `sites/` search, with the service's own port on localhost added to `outboundAllow` so they
   * can. On by default under the embedded default (no DATABASE_URL), off otherwise.
   */
  demo: boolean;
  /**
   * The `type` (or name) of the voice-provider plugin that mints the widget's ephemeral tokens;
   * `openai` by default. Another provider reads its config from `pluginConfig` under this value.
   */
  voiceProvider: string;
  /** OpenAI, the default voice provider. */
  openai: {
    /** The standard (server-side) API key; unset = the token endpoint answers 503. */
    apiKey?: string;
    /** Where the API lives, without a trailing slash; a proxy or a test stand-in may replace it. */
    baseUrl: string;
    /** The realtime model of voice sessions. */
    realtimeModel: string;
  };
  /** development | production | test */
  nodeEnv: string;
  /**
   * How much each per-site or per-session cache holds at most (the least recently used leaves
   * first): SITEVOICE_CACHE_SITES (decoded sites, 10,000), SITEVOICE_CACHE_SESSIONS (widget
   * sessions with their opened secrets, 10,000), SITEVOICE_CACHE_ADAPTERS (adapter instances,
   * each with its connections, 1,000).
   */
  caches: { sites: number; sessions: number; adapters: number };
  /**
   * Outgoing mail (magic links, the owner's notices). `smtpUrl` is SMTP_URL (`smtp://` or
   * `smtps://`, credentials in it; never logged); unset = mails are written to the log with a
   * warning. `from` is MAIL_FROM, an address or `Name <address>`.
   */
  mail: { smtpUrl?: string; from: string };
  /**
   * SITEVOICE_OWNER_EMAIL: the default workspace's contact email, "the owner" mails go to until
   * accounts exist; set on it at every start when given.
   */
  ownerEmail?: string;
  /**
   * SITEVOICE_SIGNUP: whether anyone may sign up a workspace (`open`) or only the invited
   * (`invite`, the default), so a public deployment is never claimed by the first stranger.
   */
  signup: "open" | "invite";
  /**
   * SITEVOICE_JOBS: whether this instance runs the job processor (core/jobs/), on by default.
   * Off, it still queues jobs, for the instances that run it.
   */
  jobs: boolean;
  /**
   * SITEVOICE_JOBS_POLL_MS: how often the processor looks for due jobs (5,000 by default, from
   * 100 to 60,000): how long a job queued now may wait before it starts.
   */
  jobsPollMs: number;
  /**
   * The site crawler: the contact URL its user agent names (SITEVOICE_CRAWLER_CONTACT_URL,
   * PUBLIC_BASE_URL's `/crawler` by default) and the pages a crawl reads at most
   * (SITEVOICE_CRAWL_MAX_PAGES, 500).
   */
  crawler: { contactUrl: string; maxPages: number };
  /**
   * The live analytics stream: SITEVOICE_STREAM_HEARTBEAT_MS, how often an idle stream gets a
   * comment (15,000 by default, from 100 to 60,000), which also paces the check that its key
   * and site are still valid; keep it under every proxy's idle timeout.
   */
  stream: { heartbeatMs: number };
  /**
   * Calls the service controls (core/voice/): SITEVOICE_CALL_CHECK_MS, how often a controlled
   * call's limits (its session's 2 hours, the site still there, the session still open) are
   * checked, 30,000 by default, from 100 to 60,000.
   */
  calls: { checkMs: number };
  /**
   * SITEVOICE_VOICE_PRICES over DEFAULT_VOICE_PRICES (core/voice/prices.ts): US dollars per
   * million tokens of each kind, per model, from which a controlled session's cost is computed.
   */
  voicePrices: VoicePrices;
  /**
   * SITEVOICE_PLAN_MINUTES: the voice minutes each plan bundles a calendar month (UTC), whose
   * 50 %, 80 % and 100 % a workspace's `usage.threshold` events announce. A plan without an entry
   * (enterprise, by default) has no bundle and no such events. Defaults: DEFAULT_PLAN_MINUTES.
   */
  planMinutes: Readonly<Partial<Record<Plan, number>>>;
}

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
    sitesDir: sitesDir === undefined ? undefined : path.resolve(sitesDir),
    defaultPlan: oneOf(
      "SITEVOICE_DEFAULT_PLAN",
      value("SITEVOICE_DEFAULT_PLAN") ?? "business",
      PLANS,
    ),
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
