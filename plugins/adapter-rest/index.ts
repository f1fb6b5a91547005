/**
 * The built-in REST adapter (`type: rest`, the API reference, "REST adapter"): searches a customer's JSON API
 * with GET requests only. In `querystring` mode the backend filters (DRF-style parameters, see
 * rest-query.ts); in `client-filter` mode one unfiltered GET fetches the collection and the search
 * runs in memory (`searchInMemory` of `sitevoice`), for small sources that cannot filter.
 *
 * Every request goes through `context.request`, the host's SSRF-guarded request (the guarded
 * fetch without its WHATWG layer, cheaper on a search's hot path): the base URL is the customer's
 * choice, so nothing here may reach the network another way.
 */
import { definePlugin, PLUGIN_API_VERSION } from "sitevoice";
import type { DataAdapter, PluginContext, SearchOptions } from "sitevoice";
import { inferFields, searchInMemory } from "sitevoice";
import type {
  AdapterQuery,
  CollectionIntrospection,
  CollectionSpec,
  SearchResult,
} from "sitevoice";
import type { RestAdapterConfig } from "./generated/config.ts";
import configSchema from "./config.schema.json" with { type: "json" };
import { RestClient } from "./rest-client.ts";
import { addQueryParameters, collectionUrl } from "./rest-query.ts";

/** The config as the host hands it over: `queryMode` may be missing (then `querystring`). */
export type RestConfig = RestAdapterConfig;

/** Records read to introspect a querystring-mode collection: enough to see every field's type. */
export const INTROSPECTION_SAMPLE = 50;

/** Secrets shorter than this are not scrubbed from messages: they would match ordinary words. */
const MIN_SCRUBBED_LENGTH = 4;

export class RestAdapter implements DataAdapter {
  readonly #baseUrl: string;
  readonly #mode: "querystring" | "client-filter";
  readonly #client: RestClient;
  readonly #logger: PluginContext["logger"];

  constructor(config: RestConfig, context: PluginContext) {
    try {
      new URL(config.baseUrl);
    } catch {
      throw new Error("config.baseUrl is not an absolute URL");
    }
    this.#baseUrl = config.baseUrl;
    this.#mode = config.queryMode ?? "querystring";
    this.#logger = context.logger;
    this.#client = new RestClient({
      request: context.request,
      headers: requestHeaders(config),
      timeoutMs:
        config.timeoutMs !== undefined && config.timeoutMs < context.deadlineMs
          ? config.timeoutMs
          : undefined,
      logger: context.logger,
      secrets: [config.auth?.value, ...Object.values(config.headers ?? {})].filter(
        (value): value is string => value !== undefined && value.length >= MIN_SCRUBBED_LENGTH,
      ),
    });
  }

  async search(
    collection: CollectionSpec,
    query: AdapterQuery,
    options: SearchOptions,
  ): Promise<SearchResult> {
    const url = collectionUrl(this.#baseUrl, collection.source);
    if (this.#mode === "querystring") addQueryParameters(url, query);
    const answer = await this.#client.records(url, options.signal);
    if (!answer.ok) return { success: false, error: answer.error };
    if (this.#mode === "querystring") {
      // A bare list has no count: it is every match (DRF answers one only when unpaginated).
      const total = answer.count ?? answer.records.length;
      return { success: true, total, items: answer.records.slice(0, query.limit) };
    }
    this.#warnIfPartial(collection, answer.records.length, answer.count);
    const { total, items } = searchInMemory(answer.records, query);
    return { success: true, total, items };
  }

  async introspect(
    collection: CollectionSpec,
    options: SearchOptions,
  ): Promise<CollectionIntrospection> {
    const url = collectionUrl(this.#baseUrl, collection.source);
    if (this.#mode === "querystring") {
      url.searchParams.append("limit", String(INTROSPECTION_SAMPLE));
    }
    const answer = await this.#client.records(url, options.signal);
    if (!answer.ok) throw new Error(answer.error);
    const { records, count } = answer;
    // A bare list exactly as long as the limit asked for may be cut short: its length is no count.
    const capped = this.#mode === "querystring" && records.length === INTROSPECTION_SAMPLE;
    const recordCount = count ?? (capped ? undefined : records.length);
    const found: CollectionIntrospection = {
      name: collection.name,
      source: collection.source,
      fields: inferFields(records),
    };
    if (recordCount !== undefined) found.recordCount = recordCount;
    return found;
  }

  /** Reachable means any HTTP answer from baseUrl: a 401 or 404 still proves the route works. */
  async test(options: SearchOptions): Promise<void> {
    await this.#client.reach(new URL(this.#baseUrl), options.signal);
  }

  /** A paginated source in client-filter mode: only its first page was searched. */
  #warnIfPartial(collection: CollectionSpec, received: number, count: number | undefined): void {
    if (count === undefined || count <= received) return;
    this.#logger.warn(
      { collection: collection.name, received, count },
      "client-filter mode searched only the first page of a paginated source; " +
        "use querystring mode or make the source answer every record",
    );
  }
}

/**
 * Accept, the configured headers, then the auth header (so it wins), as one record made once. A
 * bad value is refused without quoting it: it may be a secret. (Headers checks names and values
 * as fetch would.)
 */
function requestHeaders(config: RestConfig): Record<string, string> {
  const headers = new Headers({ accept: "application/json" });
  const set = (name: string, value: string, field: string) => {
    try {
      headers.set(name, value);
    } catch {
      throw new Error(`config.${field} is not a valid HTTP header (name or value)`);
    }
  };
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    set(name, value, `headers.${name}`);
  }
  const auth = config.auth;
  if (auth?.type === "bearer") set("authorization", `Bearer ${auth.value}`, "auth.value");
  if (auth?.type === "header") {
    if (auth.header === undefined) {
      throw new Error("config.auth.header is required when config.auth.type is header");
    }
    set(auth.header, auth.value, "auth");
  }
  const record: Record<string, string> = {};
  headers.forEach((value, name) => (record[name] = value));
  return record;
}

export default definePlugin<"adapter", RestConfig>({
  kind: "adapter",
  name: "adapter-rest",
  apiVersion: PLUGIN_API_VERSION,
  type: "rest",
  configSchema,
  // Secrets go to baseUrl's origin only: sources are paths below it.
  destination: (config) => new URL(config.baseUrl).origin,
  create: (config, context) => new RestAdapter(config, context),
});
