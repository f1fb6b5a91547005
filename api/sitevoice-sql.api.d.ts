// API report of "sitevoice/sql", made by bin/api-report.js: do not edit.
// Packages its types name: undici.

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

// core/search/sql/build-search.d.ts
import { type AdapterQuery } from "../search-types.js";
import { type SqlDialect } from "./dialect.js";
export type SqlValue = string | number | boolean;
export interface SqlStatement {
    sql: string;
    params: SqlValue[];
}
export interface SearchStatement extends SqlStatement {
    totalColumn?: string;
}
export declare function parseSource(source: string, defaultSchema?: string): string[];
export declare const relationSql: (dialect: SqlDialect, relation: readonly string[]) => string;
export declare function containsPattern(value: string): string;
export interface SearchStatementOptions {
    windowCount: boolean;
    primaryKey: readonly string[];
}
export declare function searchStatement(dialect: SqlDialect, relation: readonly string[], query: AdapterQuery, options: SearchStatementOptions): SearchStatement;
export declare function countStatement(dialect: SqlDialect, relation: readonly string[], query: AdapterQuery): SqlStatement;
export declare const recordCountStatement: (dialect: SqlDialect, relation: readonly string[]) => SqlStatement;
export declare function sampleStatement(dialect: SqlDialect, relation: readonly string[], fields: readonly string[]): SqlStatement;

// core/search/sql/collection-schema.d.ts
export declare const SQL_COLLECTION_SCHEMA: {
    readonly $schema: "https://json-schema.org/draft/2020-12/schema";
    readonly title: "SQL collection";
    readonly description: "A collection of a SQL adapter: its source is a table or view name.";
    readonly type: "object";
    readonly properties: {
        readonly source: {
            readonly type: "string";
            readonly pattern: "^[A-Za-z0-9_$]{1,63}(\\.[A-Za-z0-9_$]{1,63})?$";
            readonly "x-error-message": "must be a table or view name such as products or catalog.products (letters, digits, _ and $)";
        };
    };
};

// core/search/sql/connection-destination.d.ts
export declare function connectionDestination(connectionString: string): string;

// core/search/sql/connection-url.d.ts
export interface ConnectionParts {
    host: string;
    port: number;
    user: string;
    password: string;
    database: string | undefined;
    parameters: Map<string, string>;
}
export interface ConnectionUrlRules {
    schemes: readonly string[];
    defaultPort: number;
    parameters: readonly string[];
}
export declare function parseConnectionUrl(connectionString: string, rules: ConnectionUrlRules): ConnectionParts;

// core/search/sql/dialect.d.ts
export declare const LIKE_ESCAPE = "!";
export interface SqlDialect {
    readonly name: "postgres" | "mysql";
    quoteIdentifier(name: string): string;
    placeholder(index: number): string;
    containsIgnoringCase(column: string, pattern: string): string;
    orderBy(column: string, direction: "asc" | "desc"): string;
    tieBreak(column: string): string;
    readonly never: string;
}
export declare const postgresDialect: SqlDialect;
export declare const mysqlDialect: SqlDialect;

// core/search/sql/errors.d.ts
export type SqlFailureKind = "refused" | "backend" | "cancelled" | "closed";
export declare class SqlAdapterError extends Error {
    readonly kind: SqlFailureKind;
    readonly code?: string | undefined;
    readonly name = "SqlAdapterError";
    constructor(kind: SqlFailureKind, message: string, code?: string | undefined);
    static refused(message: string): SqlAdapterError;
    static closed(): SqlAdapterError;
    static cancelled(signal: AbortSignal): SqlAdapterError;
}
export declare function secretRedactor(connectionString: string): (text: string) => string;
export declare function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T>;
export { messageOf } from "../../util/message-of.js";
export declare function codeOf(error: unknown): string | undefined;
export declare const CONNECT_FAILED = "could not connect to the database";
export declare const QUERY_FAILED = "the query failed";
export declare const MISSING_RELATION = "a table or column of the collection does not exist";
export declare const HOST_NOT_ALLOWED: string;
export declare const LOCAL_SOCKET_NOT_ALLOWED = "the database host is not allowed: a Unix socket path reaches the service's own machine";
export declare function connectFailure(error: unknown): SqlAdapterError;

// core/search/sql/index.d.ts
export { SqlAdapter } from "./sql-adapter.js";
export type { CatalogColumn, PoolStats, SqlConnector, SqlRow } from "./sql-adapter.js";
export { PooledConnector } from "./pooled-connector.js";
export type { PooledConnectorOptions } from "./pooled-connector.js";
export type { DriverFailureKind, DriverPool, PoolEvents, SqlDriver } from "./sql-driver.js";
export { mysqlDialect, postgresDialect } from "./dialect.js";
export type { SqlDialect } from "./dialect.js";
export { relationSql } from "./build-search.js";
export type { SqlStatement, SqlValue } from "./build-search.js";
export { SqlAdapterError, codeOf, messageOf, secretRedactor } from "./errors.js";
export { connectionDestination } from "./connection-destination.js";
export { parseConnectionUrl } from "./connection-url.js";
export type { ConnectionParts, ConnectionUrlRules } from "./connection-url.js";
export { SQL_COLLECTION_SCHEMA } from "./collection-schema.js";

// core/search/sql/pooled-connector.d.ts
import type { Logger } from "../../host/logger.js";
import type { SqlStatement } from "./build-search.js";
import type { SqlDialect } from "./dialect.js";
import { SqlAdapterError } from "./errors.js";
import type { CatalogColumn, PoolStats, SqlConnector, SqlRow } from "./sql-adapter.js";
import type { SqlDriver } from "./sql-driver.js";
export interface PooledConnectorOptions {
    logger: Logger;
    statementTimeoutMs: number;
    maxConnections: number;
    connectionString: string;
}
export declare abstract class PooledConnector<C> implements SqlConnector {
    #private;
    abstract readonly dialect: SqlDialect;
    constructor(driver: SqlDriver<C>, options: PooledConnectorOptions);
    abstract columns(relation: readonly string[], signal: AbortSignal): Promise<CatalogColumn[]>;
    abstract primaryKey(relation: readonly string[], signal: AbortSignal): Promise<string[]>;
    abstract countsInWindow(signal: AbortSignal): Promise<boolean>;
    select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]>;
    stats(): PoolStats;
    close(): Promise<void>;
    protected setUpConnection(signal: AbortSignal): Promise<void>;
    protected connectFailure(error: unknown): SqlAdapterError;
}

// core/search/sql/sql-adapter.d.ts
import type { DataAdapter, SearchOptions } from "../../host/plugin.js";
import type { AdapterQuery, CollectionIntrospection, CollectionSpec, FieldType, SearchResult } from "../search-types.js";
import { type SqlStatement, type SqlValue } from "./build-search.js";
import type { SqlDialect } from "./dialect.js";
export type SqlRow = Record<string, unknown>;
export interface CatalogColumn {
    name: string;
    type: FieldType;
}
export interface PoolStats {
    total: number;
    idle: number;
    waiting: number;
    closed: boolean;
}
export interface SqlConnector {
    readonly dialect: SqlDialect;
    readonly defaultSchema?: string;
    select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]>;
    columns(relation: readonly string[], signal: AbortSignal): Promise<CatalogColumn[]>;
    primaryKey(relation: readonly string[], signal: AbortSignal): Promise<string[]>;
    countsInWindow(signal: AbortSignal): Promise<boolean>;
    stats(): PoolStats;
    close(): Promise<void>;
}
export declare class SqlAdapter implements DataAdapter {
    #private;
    constructor(connector: SqlConnector);
    search(collection: CollectionSpec, query: AdapterQuery, { signal }: SearchOptions): Promise<SearchResult>;
    introspect(collection: CollectionSpec, { signal }: SearchOptions): Promise<CollectionIntrospection>;
    test({ signal }: SearchOptions): Promise<void>;
    query(sql: string, params: SqlValue[], { signal }: SearchOptions): Promise<Record<string, unknown>[]>;
    poolStats(): PoolStats;
    close(): Promise<void>;
}

// core/search/sql/sql-driver.d.ts
import type { SqlStatement, SqlValue } from "./build-search.js";
import type { SqlRow } from "./sql-adapter.js";
export interface DriverPool<C> {
    acquire(): Promise<C>;
    query(sql: string, params: SqlValue[]): Promise<unknown>;
    end(): Promise<void>;
}
export interface PoolEvents {
    opened(connection: object): void;
    removed(connection: object): void;
}
export type DriverFailureKind = "timeout" | "missing" | "other";
export interface SqlDriver<C> {
    readonly label: string;
    readonly timeLimitName: string;
    readonly beginSql: string;
    readonly rollbackSql: string;
    openPool(max: number, events?: PoolEvents): DriverPool<C>;
    identity(connection: C): object;
    setUpSession?(connection: C): Promise<void>;
    query(connection: C, sql: string): Promise<unknown>;
    execute(connection: C, statement: SqlStatement): Promise<SqlRow[]>;
    release(connection: C): void;
    discard(connection: C, reason: Error): void;
    backendId(connection: C): number | undefined;
    killStatement(id: number): SqlStatement;
    killNeedless?(error: unknown): boolean;
    failureKind(error: unknown): DriverFailureKind;
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
