// API report of "sitevoice", made by bin/api-report.js: do not edit.
// Packages its types name: ajv, undici.

// core/errors.d.ts
export type ErrorDetails = Record<string, unknown>;
export declare const errorCodes: {
    readonly invalid_request: {
        readonly meaning: "Body or parameters failed validation; details names the field";
    };
    readonly invalid_params: {
        readonly meaning: "Analytics reads: bad date format or unknown type";
    };
    readonly unauthorized: {
        readonly meaning: "Missing, malformed or revoked API key or session";
    };
    readonly invalid_signature: {
        readonly meaning: "Widget HMAC mismatch, wrong or expired signing secret";
    };
    readonly invalid_token: {
        readonly meaning: "Magic-link or lead token used, expired or unknown";
    };
    readonly forbidden: {
        readonly meaning: "Key valid but lacks the scope, or is limited to other sites; a download link changed or expired";
    };
    readonly origin_not_allowed: {
        readonly meaning: "Origin is not the site's domain or additional domains";
    };
    readonly not_found: {
        readonly meaning: "Resource does not exist or belongs to another workspace";
    };
    readonly site_not_found: {
        readonly meaning: "Unknown site_id on a widget or analytics endpoint";
    };
    readonly method_not_allowed: {
        readonly meaning: "The path exists but not with this method; Allow lists the methods it takes";
    };
    readonly not_acceptable: {
        readonly meaning: "The Accept header names no type the endpoint answers with";
    };
    readonly conflict: {
        readonly meaning: "Duplicate id, or a concurrent change won the race";
    };
    readonly payload_too_large: {
        readonly meaning: "Body over 64 KiB (widget endpoints) or 1 MiB (others)";
    };
    readonly unsupported_media_type: {
        readonly meaning: "Body in a Content-Encoding or charset the service does not read";
    };
    readonly validation_failed: {
        readonly meaning: "Business-rule rejection (plan limit, plain-http baseUrl, \u2026)";
    };
    readonly adapter_error: {
        readonly meaning: "The data adapter failed; details.error holds its message";
    };
    readonly rate_limited: {
        readonly meaning: "Over a rate limit; wait Retry-After seconds";
    };
    readonly headers_too_large: {
        readonly meaning: "Request line and headers over the HTTP server's limit (16 KiB by default)";
    };
    readonly internal_error: {
        readonly meaning: "Server fault";
    };
    readonly service_unavailable: {
        readonly meaning: "Transient; retry with backoff";
    };
    readonly crawler_unavailable: {
        readonly meaning: "First crawl still running; retry in 30 s";
    };
    readonly adapter_timeout: {
        readonly meaning: "The data backend was slower than 10 seconds";
    };
};
export type ErrorCode = keyof typeof errorCodes;
export declare class ServiceError extends Error {
    readonly code: ErrorCode;
    readonly details: ErrorDetails;
    constructor(code: ErrorCode, message: string, options?: {
        details?: ErrorDetails;
        cause?: unknown;
    });
}
export declare const isServiceError: (value: unknown) => value is ServiceError;
export declare const errors: {
    invalidRequest: (message: string, details?: ErrorDetails) => ServiceError;
    invalidParams: (message: string, details?: ErrorDetails) => ServiceError;
    unauthorized: (message?: string) => ServiceError;
    forbidden: (message: string, details?: ErrorDetails) => ServiceError;
    notFound: (what: string, id?: string) => ServiceError;
    invalidSignature: () => ServiceError;
    originNotAllowed: (origin: string | undefined) => ServiceError;
    invalidToken: (message?: string) => ServiceError;
    siteNotFound: (siteId: string) => ServiceError;
    routeNotFound: (method: string, path: string) => ServiceError;
    methodNotAllowed: (method: string, path: string, allow: string[]) => ServiceError;
    notAcceptable: (message: string, details?: ErrorDetails) => ServiceError;
    conflict: (message: string, details?: ErrorDetails) => ServiceError;
    payloadTooLarge: (limitBytes: number) => ServiceError;
    unsupportedMediaType: (message: string, details?: ErrorDetails) => ServiceError;
    headersTooLarge: (limitBytes: number) => ServiceError;
    validationFailed: (message: string, details?: ErrorDetails) => ServiceError;
    rateLimited: (retryAfterSeconds: number, details?: ErrorDetails) => ServiceError;
    adapterError: (message: string, details?: ErrorDetails) => ServiceError;
    adapterTimeout: (timeoutMs: number) => ServiceError;
    internal: (cause: unknown) => ServiceError;
    serviceUnavailable: (message: string, cause?: unknown) => ServiceError;
    storeUnavailable: (cause: unknown) => ServiceError;
    crawlerUnavailable: (retryAfterSeconds: number) => ServiceError;
};

// core/host/call-control.d.ts
import type { VoiceTool } from "./voice-tool.js";
export interface ControlledSession {
    instructions: string;
    tools: VoiceTool[];
}
export interface TokenCounts {
    text: number;
    audio: number;
    image: number;
}
export interface ResponseUsage {
    response_id: string;
    model: string;
    input: TokenCounts;
    cached: TokenCounts;
    output: Omit<TokenCounts, "image">;
}
export interface CallEvents {
    session(current: ControlledSession): void;
    usage(usage: ResponseUsage): void;
    closed(reason: string): void;
}
export interface CallControl {
    apply(session: ControlledSession): Promise<void>;
    hangUp(): Promise<void>;
    close(): void;
}
export declare class CallEnded extends Error {
    constructor(message: string);
}

// core/host/check-definition.d.ts
import type { ValidateFunction } from "ajv";
import type { HostLogger } from "./logger.js";
import type { PluginDefinition, PluginKind } from "./plugin.js";
export interface RegisteredPlugin {
    readonly name: string;
    readonly kind: PluginKind;
    readonly type?: string;
    readonly source: string;
    readonly definition: PluginDefinition;
}
export interface CheckedPlugin extends RegisteredPlugin {
    validate: ValidateFunction | undefined;
    withDefaults(config: unknown): unknown;
    validateCollection: ValidateFunction | undefined;
}
export declare function checkDefinition(value: unknown, source: string, logger: HostLogger): CheckedPlugin;

// core/host/index.d.ts
export { PLUGIN_API_VERSION, PLUGIN_CALL_DEADLINE_MS, VoiceProviderUnavailable, definePlugin, pluginKinds, } from "./plugin.js";
export type { AuthProvider, DataAdapter, EventSink, InstanceByKind, PluginContext, PluginDefinition, PluginInstance, PluginKind, PasswordHasher, PromptTemplateSource, SearchOptions, VoiceProvider, VoiceSession, VoiceSessionRequest, VoiceTool, } from "./plugin.js";
export { OAUTH_REFRESH_WINDOW_SECONDS } from "./oauth-contract.js";
export type { OAuthAccess, OAuthProvider } from "./oauth-contract.js";
export { CallEnded } from "./call-control.js";
export type { CallControl, CallEvents, ControlledSession, ResponseUsage, TokenCounts, } from "./call-control.js";
export { PluginHost } from "./plugin-host.js";
export type { RegisteredPlugin } from "./check-definition.js";
export type { PluginHostOptions } from "./plugin-host.js";
export type { HostLogger, LogMethod, Logger } from "./logger.js";
export type { PluginStatus, PluginSummary } from "./plugin-status.js";
export { PluginCallError, PluginConfigError, PluginCreateError, PluginLoadError, } from "./plugin-errors.js";
export type { PluginConfigIssue } from "./plugin-errors.js";

// core/host/logger.d.ts
export interface Logger {
    debug: LogMethod;
    info: LogMethod;
    warn: LogMethod;
    error: LogMethod;
}
export interface LogMethod {
    (fields: object, message?: string): void;
    (message: string): void;
}
export interface HostLogger extends Logger {
    child(bindings: Record<string, unknown>): Logger;
}

// core/host/oauth-contract.d.ts
export interface OAuthProvider {
    authorizationUrl: string;
    tokenUrl: string;
    revocationUrl?: string;
    scopes: string[];
    clientAuthentication?: "client_secret_basic" | "client_secret_post" | "none";
    authorizationParams?: Record<string, string>;
    issuer?: string;
}
export interface OAuthAccess {
    accessToken(options?: {
        rejected?: string;
        signal?: AbortSignal;
    }): Promise<string>;
}
export declare const OAUTH_REFRESH_WINDOW_SECONDS: number;

// core/host/plugin-errors.d.ts
import type { PluginKind } from "./plugin.js";
export declare class PluginLoadError extends Error {
    readonly source: string;
    readonly plugin: string | undefined;
    constructor(message: string, options: {
        source: string;
        plugin?: string | undefined;
        cause?: unknown;
    });
}
export interface PluginConfigIssue {
    field: string;
    message: string;
}
export declare class PluginConfigError extends Error {
    readonly plugin: string;
    readonly errors: PluginConfigIssue[];
    constructor(plugin: string, errors: PluginConfigIssue[]);
}
export declare class PluginCreateError extends Error {
    readonly plugin: string;
    readonly scope: string;
    constructor(plugin: string, scope: string, cause: unknown);
}
export declare class PluginCallError extends Error {
    readonly plugin: string;
    readonly kind: PluginKind;
    readonly method: string;
    constructor(plugin: string, kind: PluginKind, method: string, cause: unknown);
}

// core/host/plugin-host.d.ts
import type { HostLogger } from "./logger.js";
import type { PluginConfigIssue } from "./plugin-errors.js";
import type { InstanceByKind, PluginKind } from "./plugin.js";
import type { RegisteredPlugin } from "./check-definition.js";
import type { Problem } from "../validation/problems-error.js";
import { type ScopedInstanceLimits } from "./plugin-instances.js";
import type { PluginNetwork } from "./plugin-network.js";
import type { PluginSummary } from "./plugin-status.js";
import type { OutboundPolicy } from "../security/outbound-policy.js";
import type { OAuthAccessFor } from "./plugin-instances.js";
export interface PluginHostOptions {
    logger: HostLogger;
    outbound: OutboundPolicy | PluginNetwork;
    now?: () => number;
    instanceLimits?: ScopedInstanceLimits;
    oauthAccess?: OAuthAccessFor;
}
export declare class PluginHost {
    #private;
    constructor(options: PluginHostOptions);
    provideOAuth(access: OAuthAccessFor): void;
    get scopedInstanceCount(): number;
    register(definition: unknown, source: string): void;
    loadBuiltins(dir: string): Promise<void>;
    loadPackages(names: string[]): Promise<void>;
    find(kind: PluginKind, typeOrName: string): RegisteredPlugin | undefined;
    list(): PluginSummary[];
    destination(kind: PluginKind, typeOrName: string, config: unknown): string | undefined;
    validateConfig(kind: PluginKind, typeOrName: string, config: unknown): PluginConfigIssue[];
    configWithDefaults(kind: PluginKind, typeOrName: string, config: unknown): unknown;
    configProblems(kind: PluginKind, typeOrName: string, config: unknown, prefix: readonly string[]): Problem[];
    collectionProblems(typeOrName: string, collection: unknown, prefix: readonly string[]): Problem[];
    instance<K extends PluginKind>(kind: K, typeOrName: string, config: unknown, scope: string): Promise<InstanceByKind[K]>;
    startGlobal(configs: Record<string, unknown>, kinds?: readonly PluginKind[]): Promise<void>;
    globals<K extends PluginKind>(kind: K): InstanceByKind[K][];
    useGlobal<K extends PluginKind>(kind: K, serves: (instance: InstanceByKind[K]) => boolean, purpose: string): InstanceByKind[K] | undefined;
    start(): void;
    close(): Promise<void>;
}

// core/host/plugin-instances.d.ts
import type { HostLogger } from "./logger.js";
import { type InstanceByKind, type PluginInstance, type PluginDefinition, type PluginKind } from "./plugin.js";
import type { OAuthAccess } from "./oauth-contract.js";
import type { PluginNetwork } from "./plugin-network.js";
import type { Registration } from "./plugin-status.js";
export declare class PluginInstances {
    #private;
    oauthAccess: OAuthAccessFor | undefined;
    constructor(options: {
        logger: HostLogger;
        network: PluginNetwork;
        now: () => number;
        limits?: ScopedInstanceLimits;
        oauthAccess?: OAuthAccessFor;
    });
    get scopedCount(): number;
    get(plugin: Registration, config: unknown, scope: string): Promise<PluginInstance>;
    globals<K extends PluginKind>(kind: K): {
        plugin: Registration;
        instance: InstanceByKind[K];
    }[];
    close(): Promise<void>;
}
export type OAuthAccessFor = (instance: {
    plugin: PluginDefinition;
    scope: string;
    config: unknown;
}) => OAuthAccess;
export declare const DEFAULT_MAX_SCOPED = 1000;
export declare const DEFAULT_SCOPED_IDLE_MS: number;
export interface ScopedInstanceLimits {
    maxScoped?: number;
    scopedIdleMs?: number;
    retireAfterMs?: number;
}

// core/host/plugin-network.d.ts
import type { Socket } from "node:net";
import { type GuardedRequest } from "../security/guarded-request.js";
import { OutboundPolicy } from "../security/outbound-policy.js";
export interface PluginNetwork {
    fetch: typeof fetch;
    request: GuardedRequest;
    socket: () => Socket;
    close?: () => Promise<void>;
}
export declare function pluginNetwork(outbound: OutboundPolicy | PluginNetwork): PluginNetwork;

// core/host/plugin-status.d.ts
import type { CheckedPlugin } from "./check-definition.js";
import type { PluginKind } from "./plugin.js";
export type PluginStatus = "registered" | "active" | "unused" | "failed";
export interface PluginSummary {
    name: string;
    kind: PluginKind;
    type?: string;
    source: string;
    status: PluginStatus;
    error?: string;
    note?: string;
}
export interface Registration extends CheckedPlugin {
    status: PluginStatus;
    error: string | undefined;
    usedFor: string | undefined;
}
export declare function summarize({ name, kind, type, source, status, error, usedFor, }: Registration): PluginSummary;

// core/host/plugin.d.ts
import type { Socket } from "node:net";
import type { GuardedRequest } from "../security/guarded-request.js";
import type { CallControl, CallEvents } from "./call-control.js";
import type { VoiceTool } from "./voice-tool.js";
import type { OAuthAccess, OAuthProvider } from "./oauth-contract.js";
import type { Logger } from "./logger.js";
import type { AdapterQuery, CollectionIntrospection, CollectionSpec, SearchResult } from "../search/search-types.js";
export declare const PLUGIN_API_VERSION = 1;
export declare const PLUGIN_CALL_DEADLINE_MS = 10000;
export declare const pluginKinds: readonly [
    "adapter",
    "auth",
    "event-sink",
    "prompt-template",
    "voice-provider"
];
export type PluginKind = (typeof pluginKinds)[number];
export interface PluginContext {
    logger: Logger;
    fetch: typeof fetch;
    request: GuardedRequest;
    socket(): Socket;
    now: () => number;
    scope: string;
    deadlineMs: number;
    oauth?: OAuthAccess;
}
export interface PluginInstance {
    close?(): Promise<void> | void;
}
export interface SearchOptions {
    signal: AbortSignal;
}
export interface DataAdapter extends PluginInstance {
    search(collection: CollectionSpec, query: AdapterQuery, options: SearchOptions): Promise<SearchResult>;
    introspect?(collection: CollectionSpec, options: SearchOptions): Promise<CollectionIntrospection>;
    test?(options: SearchOptions): Promise<void>;
}
export interface EventSink extends PluginInstance {
    handle(event: {
        id: string;
        type: string;
        site_id?: string;
        data: unknown;
    }): Promise<void>;
}
export interface PromptTemplateSource extends PluginInstance {
    templates?: Record<string, string>;
    partials?: Record<string, string>;
    helpers?: Record<string, (...args: unknown[]) => unknown>;
}
export type { VoiceTool } from "./voice-tool.js";
export type { OAuthAccess, OAuthProvider } from "./oauth-contract.js";
export interface VoiceSessionRequest {
    site_id: string;
    voice: string;
    language: string;
    mode: "voice" | "text";
    instructions: string;
    tools: VoiceTool[];
    expiresInSeconds: number;
}
export interface VoiceSession {
    ephemeral_token: {
        value: string;
        expires_at: string;
    };
    provider: {
        name: string;
        model: string;
        voice: string;
        connect_url: string;
    };
}
export interface VoiceProvider extends PluginInstance {
    createSession(request: VoiceSessionRequest, options: SearchOptions): Promise<VoiceSession>;
    controlCall?(callId: string, events: CallEvents, options: SearchOptions): Promise<CallControl>;
    unavailable?(): string | undefined;
    embed?(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
export declare class VoiceProviderUnavailable extends Error {
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
export interface PasswordHasher {
    hash(password: string): Promise<string>;
    verify(hash: string, password: string): Promise<boolean>;
}
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
    name: string;
    apiVersion: number;
    type?: string;
    configSchema?: Record<string, unknown>;
    collectionSchema?: Record<string, unknown>;
    destination?(config: C): string;
    voices?: readonly string[];
    oauth?: OAuthProvider;
    create(config: C, context: PluginContext): InstanceByKind[K] | Promise<InstanceByKind[K]>;
}
export declare function definePlugin<K extends PluginKind, C = Record<string, unknown>>(definition: PluginDefinition<K, C>): PluginDefinition<K, C>;

// core/host/voice-tool.d.ts
export interface VoiceTool {
    type: "function";
    name: string;
    description: string;
    parameters: Record<string, unknown>;
}

// core/index.d.ts
export * from "./host/index.js";
export { FIELD_TYPES, FILTER_OPERATORS, MAX_SEARCH_LIMIT } from "./search/search-types.js";
export type { AdapterQuery, CollectionIntrospection, CollectionSpec, FieldType, Filter, FilterOperator, SearchParams, SearchResult, } from "./search/search-types.js";
export { inferFields, searchInMemory } from "./search/in-memory-search.js";
export type { InMemoryQuery, InMemoryResult } from "./search/in-memory-search.js";
export { readCappedBody } from "./util/read-capped.js";
export { messageOf } from "./util/message-of.js";
export { outboundRefusal } from "./security/outbound-policy.js";
export { ResponseTooLargeError } from "./security/guarded-request.js";
export type { GuardedRequest, OutboundRequestOptions, OutboundResponse, } from "./security/guarded-request.js";

// core/search/in-memory-search.d.ts
import type { AdapterQuery, FieldType, Filter } from "./search-types.js";
export type InMemoryQuery = Pick<AdapterQuery, "text" | "searchFields" | "filters" | "sort"> & {
    limit: number;
    fields?: readonly string[];
};
export interface InMemoryResult<T> {
    total: number;
    items: T[];
}
export declare function searchInMemory<T extends object>(records: readonly T[], query: InMemoryQuery): InMemoryResult<T>;
export declare function matchesFilter(record: object, filter: Filter): boolean;
export declare function compareValues(a: unknown, b: unknown): number;
export declare function fieldTypeOf(value: unknown): FieldType;
export interface InferredField {
    name: string;
    type: FieldType;
    sample?: unknown;
}
export declare function inferFields(records: readonly object[]): InferredField[];
export declare function isIsoDate(value: string): boolean;

// core/search/search-types.d.ts
export declare const FILTER_OPERATORS: readonly [
    "eq",
    "neq",
    "gt",
    "gte",
    "lt",
    "lte",
    "contains",
    "in"
];
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
export type { Filter, SearchParams } from "../types/generated/search-params.js";
import type { Filter } from "../types/generated/search-params.js";
export declare const MAX_SEARCH_LIMIT = 10;
export interface CollectionSpec {
    name: string;
    source: string;
    searchable_fields: string[];
    filterable_fields: string[];
    display_fields: string[];
    description?: string;
}
export interface AdapterQuery {
    text?: string;
    searchFields: string[];
    filters: Filter[];
    sort?: {
        field: string;
        direction: "asc" | "desc";
    };
    limit: number;
    fields: string[];
}
export type SearchResult = {
    success: true;
    total: number;
    items: Record<string, unknown>[];
} | {
    success: false;
    error: string;
};
export declare const FIELD_TYPES: readonly [
    "string",
    "number",
    "boolean",
    "date",
    "array",
    "object",
    "unknown"
];
export type FieldType = (typeof FIELD_TYPES)[number];
export interface CollectionIntrospection {
    name: string;
    source: string;
    recordCount?: number;
    description?: string;
    fields: {
        name: string;
        type: FieldType;
        sample?: unknown;
    }[];
}

// core/security/guarded-request.d.ts
import type { Agent } from "undici";
import type { OutboundPolicy } from "./outbound-policy.js";
export declare const DEFAULT_MAX_RESPONSE_BYTES: number;
export interface OutboundRequestOptions {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array;
    signal?: AbortSignal;
    maxBytes?: number;
    truncate?: boolean;
    redirect?: "follow" | "manual";
}
export interface OutboundResponse {
    status: number;
    statusText: string;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
    url: string;
    redirected: boolean;
}
export type GuardedRequest = (url: string | URL, options?: OutboundRequestOptions) => Promise<OutboundResponse>;
export declare class ResponseTooLargeError extends Error {
    readonly host: string;
    readonly limit: number;
    constructor(host: string, limit: number);
}
export declare function guardedRequest(agent: Agent, options: {
    policy: OutboundPolicy;
    maxRedirects?: number;
}): GuardedRequest;

// core/security/outbound-allow-list.d.ts
export type OutboundAllowEntry = {
    kind: "host";
    host: string;
    port?: number;
} | {
    kind: "network";
    address: string;
    prefixLength: number;
    port?: number;
};
export interface OutboundTarget {
    host: string;
    address: string;
    port: number;
}
export declare function parseOutboundAllowList(raw: string): OutboundAllowEntry[];
export declare function parseOutboundAllowEntry(text: string): OutboundAllowEntry;
export declare function allowEntryMatches(entry: OutboundAllowEntry, target: OutboundTarget): boolean;

// core/security/outbound-policy.d.ts
import { type LookupFunction } from "node:net";
import { type OutboundAllowEntry, type OutboundTarget } from "./outbound-allow-list.js";
export type OutboundRefusalKind = "address" | "metadata" | "local-socket" | "request";
export declare class OutboundBlockedError extends Error {
    readonly host: string;
    readonly reason: string;
    readonly kind: OutboundRefusalKind;
    readonly code = "OUTBOUND_BLOCKED";
    constructor(host: string, reason: string, kind?: OutboundRefusalKind);
}
export declare function outboundRefusal(error: unknown): OutboundBlockedError | undefined;
export interface ResolvedAddress {
    address: string;
    family: number;
}
export interface OutboundPolicyOptions {
    allowPrivateNetworks: boolean;
    allow?: readonly OutboundAllowEntry[];
    resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}
export interface AddressRefusal {
    kind: "address" | "metadata";
    description: string;
}
export declare class OutboundPolicy {
    #private;
    constructor(options: OutboundPolicyOptions);
    static fromSettings(settings: {
        allowPrivateNetworks: boolean;
        outboundAllow: readonly OutboundAllowEntry[];
    }): OutboundPolicy;
    refusal(target: OutboundTarget): AddressRefusal | undefined;
    checkLiteral(host: string, port: number): void;
    lookup(port: number): LookupFunction;
    checkUrlDestination(url: URL, timeoutMs?: number): Promise<void>;
}

// core/types/generated/search-params.d.ts
export type Scalar = string | number | boolean;
export interface SearchParams {
    collection: string;
    query?: string;
    filters?: Filter[];
    sort_by?: string;
    sort_direction?: ("asc" | "desc") & string;
    limit?: number;
}
export interface Filter {
    field: string;
    operator: ("eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "contains" | "in") & string;
    value: Scalar | Scalar[];
}

// core/util/message-of.d.ts
export declare function messageOf(error: unknown): string;
export declare function messageWithCause(error: unknown): string;

// core/util/read-capped.d.ts
export declare function readCappedBody(response: Response, maxBytes: number): Promise<Buffer | undefined>;

// core/validation/problems-error.d.ts
import type { ServiceError } from "../errors.js";
export type ProblemKind = "shape" | "rule" | "conflict";
interface FieldError {
    field: string;
    message: string;
}
export interface Problem extends FieldError {
    kind: ProblemKind;
    details?: Record<string, unknown>;
}
export declare function problemsError(problems: readonly Problem[]): ServiceError;
export {};
