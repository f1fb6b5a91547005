/**
 * The service's settings, as `loadSettings` (settings.ts) reads them from the environment: each
 * field names its variable and its default.
 */
import type { Plan } from "./plans.ts";
import type { OutboundAllowEntry } from "./security/outbound-allow-list.ts";
import type { DatabaseSettings } from "./settings-values.ts";
import type { VoicePrices } from "./voice/prices.ts";
import type { OAuthClientSettings } from "./oauth/oauth-client-settings.ts";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

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
  /**
   * SITEVOICE_DEFAULT_PLAN: the default workspace's plan, set at every start when given (like
   * ownerEmail); unset, a new default workspace is on `business` and a stored one keeps its own.
   */
  defaultPlan?: Plan;
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
  /**
   * SITEVOICE_EMBEDDINGS: the voice-provider plugin (type or name) whose `embed` gives the
   * passages of sites' knowledge vectors for meaning search, read like `voiceProvider`'s config;
   * unset (or `off`, the default), keyword search alone, and no text leaves for an embeddings API.
   */
  embeddings?: string;
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
   * each with its connections, 1,000), SITEVOICE_CACHE_KNOWLEDGE_MB (sites' search indexes, by
   * their serialized size, 256 MB).
   */
  caches: { sites: number; sessions: number; adapters: number; knowledgeMb: number };
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
   * SITEVOICE_DRAIN_MS: on SIGTERM, how long the instance goes on serving while `/v1/health/ready`
   * answers 503, so a load balancer takes it out of its pool before it stops accepting (3,000 by
   * default, from 0 to 60,000; keep it above the balancer's check interval times its fall count).
   */
  drainMs: number;
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
  /**
   * SITEVOICE_OAUTH_CLIENTS: the operator's OAuth client of each OAuth adapter type
   * (core/oauth/oauth-client-settings.ts); a type without one cannot be connected.
   */
  oauthClients: Readonly<Record<string, OAuthClientSettings>>;
}
