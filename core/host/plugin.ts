/**
 * The plugin contract. A plugin is a module whose default export is made by `definePlugin`.
 * `definePlugin` only gives types; the host checks everything at registration.
 */
import type { Socket } from "node:net";
import type { GuardedRequest } from "../security/guarded-request.ts";
import type { CallControl, CallEvents } from "./call-control.ts";
import type { VoiceTool } from "./voice-tool.ts";
import type { OAuthAccess, OAuthProvider } from "./oauth-contract.ts";
import type { Logger } from "./logger.ts";
import type {
  AdapterQuery,
  CollectionIntrospection,
  CollectionSpec,
  SearchResult,
} from "../search/search-types.ts";

/** The contract version this host speaks; a plugin built for another is refused. */
export const PLUGIN_API_VERSION = 1;

/**
 * How long the service waits for one call of a plugin that serves a visitor (a search): after
 * it the caller gets 504 and the call's signal aborts. Plugins see it as `context.deadlineMs`
 * and bound their own backend calls by it (a server-side statement timeout, a request timeout).
 */
export const PLUGIN_CALL_DEADLINE_MS = 10_000;

export const pluginKinds = [
  "adapter",
  "auth",
  "event-sink",
  "prompt-template",
  "voice-provider",
] as const;
export type PluginKind = (typeof pluginKinds)[number];

/** What the host hands to `create`. */
export interface PluginContext {
  /** A child logger named after the plugin. */
  logger: Logger;
  /**
   * `fetch` for outbound requests. The host wraps it with the outbound policy (the SSRF guard),
   * so plugins must use it rather than the global one.
   */
  fetch: typeof fetch;
  /**
   * The same guard without the WHATWG layer: a request whose whole body comes back as a Buffer,
   * read up to `maxBytes` (ResponseTooLargeError past it). Cheaper than `fetch` per call; for
   * adapters on a search's hot path that read small JSON answers.
   */
  request: GuardedRequest;
  /**
   * A new TCP socket (call it once per connection), not yet connected, whose
   * `connect(port, host)` passes the outbound policy: a refused destination (a private or
   * metadata address the operator did not allow, a Unix socket path) ends the socket with an
   * `error` whose `code` is `OUTBOUND_BLOCKED`, and a host name is connected to the addresses
   * that were checked. Plugins that open their own connections (database drivers, other
   * protocols) must use it, as they use `fetch` for HTTP; a driver that takes a socket factory
   * (pg's and mysql2's `stream`) can be handed it.
   */
  socket(): Socket;
  /** Milliseconds since the epoch; replaced by a fake clock in tests. */
  now: () => number;
  /** The scope the instance serves: a site_id, or "global" for service-wide plugins. */
  scope: string;
  /**
   * How long the service waits for one search (PLUGIN_CALL_DEADLINE_MS): bound backend calls
   * by it, so a call the service gave up on also stops at the backend.
   */
  deadlineMs: number;
  /**
   * Adapters that declare `oauth`: the site's OAuth connection (oauth-contract.ts). Absent for
   * every other plugin.
   */
  oauth?: OAuthAccess;
}

/** Every instance may hold resources; the host calls `close` at shutdown or when replaced. */
export interface PluginInstance {
  /** Called once, in reverse order of creation, when the host shuts down or the config changes. */
  close?(): Promise<void> | void;
}

/** The options a search receives. */
export interface SearchOptions {
  /** Aborted when the caller gives up (timeout, client gone); the backend call must stop. */
  signal: AbortSignal;
}

/**
 * An adapter instance serves one site's `adapter.config` (one instance per site and config; the
 * host closes it when the config changes). The service checks every SearchParams against the
 * collection's field lists before calling `search`, and keeps only the display fields of the
 * items; an adapter still binds every value and quotes every identifier.
 */
export interface DataAdapter extends PluginInstance {
  /** Runs a checked search. A backend failure is `{success: false, error}` (no credentials in it). */
  search(
    collection: CollectionSpec,
    query: AdapterQuery,
    options: SearchOptions,
  ): Promise<SearchResult>;
  /** Each field of the collection with its type, a sample value, and the record count. */
  introspect?(collection: CollectionSpec, options: SearchOptions): Promise<CollectionIntrospection>;
  /** Checks the connection; resolves when the backend answers, rejects with why not. */
  test?(options: SearchOptions): Promise<void>;
}

/** An event sink receives every service event (webhooks, log shipping, …). */
export interface EventSink extends PluginInstance {
  handle(event: { id: string; type: string; site_id?: string; data: unknown }): Promise<void>;
}

/** A prompt-template plugin adds Handlebars templates, partials and helpers. */
export interface PromptTemplateSource extends PluginInstance {
  templates?: Record<string, string>;
  partials?: Record<string, string>;
  helpers?: Record<string, (...args: unknown[]) => unknown>;
}

export type { VoiceTool } from "./voice-tool.ts";
export type { OAuthAccess, OAuthProvider } from "./oauth-contract.ts";

/** What the service asks a voice provider for when a visitor starts a conversation. */
export interface VoiceSessionRequest {
  site_id: string;
  /** The site's voice name, language and time zone. */
  voice: string;
  language: string;
  /**
   * How the visitor talks: `voice` speaks and hears (their speech is transcribed, for the
   * widget's captions); `text` types and reads, so the session answers in text only.
   */
  mode: "voice" | "text";
  /** The resolved personality prompt. */
  instructions: string;
  tools: VoiceTool[];
  /** How long the ephemeral token may be used to connect. */
  expiresInSeconds: number;
}

/** The ephemeral credentials the widget connects to the provider with. */
export interface VoiceSession {
  ephemeral_token: { value: string; expires_at: string };
  provider: { name: string; model: string; voice: string; connect_url: string };
}

/**
 * A voice provider mints ephemeral sessions for the widget. A provider that cannot (no key,
 * provider down) throws VoiceProviderUnavailable with a message saying which; the service answers
 * 503 service_unavailable with it.
 */
export interface VoiceProvider extends PluginInstance {
  createSession(request: VoiceSessionRequest, options: SearchOptions): Promise<VoiceSession>;
  /**
   * Optional (call-control.ts): joins the provider's call `callId` from the server, resolving once
   * connected; `events` then hears of the call until the connection closes. Rejects with
   * CallEnded when the call is over or unknown, with any other error when it could not connect.
   */
  controlCall?(callId: string, events: CallEvents, options: SearchOptions): Promise<CallControl>;
  /**
   * Optional: why the provider can make no session at all as configured (no API key), in words
   * for the operator, or undefined when it may. Asked at start (a warning in the log) and by the
   * dashboard's pages (a banner); it must answer from its config alone, without calling out.
   */
  unavailable?(): string | undefined;
  /**
   * Optional: the meaning of texts as vectors, for the meaning search of a site's knowledge
   * (passages when the index is built, a visitor's question when it is searched). Answers one
   * vector per text, in the order of `texts`, all of one length; only their directions are
   * compared (cosine). Called only when the operator turned embeddings on
   * (SITEVOICE_EMBEDDINGS), since the texts leave for the provider. Rejects on any failure, and
   * soon after `signal` aborts: a search waits for it only briefly.
   */
  embed?(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Thrown by a voice provider that cannot mint a session; its message reaches the client. */
export class VoiceProviderUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "VoiceProviderUnavailable";
  }
}

/** What a password becomes in the store, and the check of one against it. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password, or a hash this hasher does not read; never throws for those. */
  verify(hash: string, password: string): Promise<boolean>;
}

/**
 * An auth plugin: who a person signing in to the dashboard is. Local accounts (the built-in
 * `auth-local`) give `passwords`, which the service's sign-up and sign-in use; an external
 * identity provider gives `authenticate` instead, turning a request's credentials (a bearer JWT
 * checked against its JWKS) into an identity, or undefined to pass.
 */
export interface AuthProvider extends PluginInstance {
  passwords?: PasswordHasher;
  authenticate?(request: {
    headers: Record<string, string | string[] | undefined>;
  }): Promise<unknown | undefined>;
}

export interface InstanceByKind {
  adapter: DataAdapter;
  auth: AuthProvider;
  "event-sink": EventSink;
  "prompt-template": PromptTemplateSource;
  "voice-provider": VoiceProvider;
}

export interface PluginDefinition<K extends PluginKind = PluginKind, C = Record<string, unknown>> {
  kind: K;
  /** npm-style name, unique in the host: `adapter-rest`, `acme-sitevoice-airtable`. */
  name: string;
  /** Must equal PLUGIN_API_VERSION. */
  apiVersion: number;
  /** For adapters and voice providers: the `type` value in a site config they serve. */
  type?: string;
  /**
   * A JSON Schema for the config; the host validates with ajv before calling `create`, and a site
   * whose adapter config fails it is refused when saved. It may word its rules for site owners
   * with `x-error-message` (what the value must be) and mark business rules, answered 422
   * rather than 400, with `x-error-code: "validation_failed"`, as the service's own schemas do.
   */
  configSchema?: Record<string, unknown>;
  /**
   * Adapters: a JSON Schema each of a site's collections must also satisfy, for a plugin that
   * takes only some `source`s (the SQL adapters: a table or view name); checked when the site is
   * saved, as the config is.
   */
  collectionSchema?: Record<string, unknown>;
  /**
   * Adapters: where a (valid) config sends its secrets, as text: an origin, a database's host,
   * port and name. Clients read secrets masked, and a masked secret sent back means "unchanged"
   * only while this text stays the same, so a stored secret never follows a config pointed
   * elsewhere. Without it, every non-secret value of the config counts as the destination.
   */
  destination?(config: C): string;
  /**
   * Voice providers: the voice names a session may ask for. Sites are checked against the list of
   * the configured provider when they are saved, so a wrong voice is refused then rather than at
   * a visitor's first conversation. Without it any name is accepted on save.
   */
  voices?: readonly string[];
  /**
   * Adapters reached with a business's OAuth 2.0 grant: the provider's endpoints and scopes. The
   * host runs the flow (PKCE, state, sealed tokens, refresh) and gives instances
   * `context.oauth`; without a connection a search is 422 adapter_error.
   */
  oauth?: OAuthProvider;
  /** Makes an instance. May be async. A throw here is caught and reported, never fatal. */
  create(config: C, context: PluginContext): InstanceByKind[K] | Promise<InstanceByKind[K]>;
}

/** Types a plugin definition; it returns its argument unchanged. */
export function definePlugin<K extends PluginKind, C = Record<string, unknown>>(
  definition: PluginDefinition<K, C>,
): PluginDefinition<K, C> {
  return definition;
}
