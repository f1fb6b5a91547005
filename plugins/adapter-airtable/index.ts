/**
 * The built-in Airtable adapter (`type: airtable`): searches the tables of one Airtable base
 * through Airtable's Web API, reached with the business's OAuth grant. The plugin declares
 * Airtable's OAuth endpoints (`oauth`); the host runs the flow with the operator's client
 * (SITEVOICE_OAUTH_CLIENTS), keeps the tokens and hands each instance `context.oauth`, so the
 * config holds no secret. A collection's `source` is a table name or id.
 *
 * A search is one formula (airtable-formula.ts) over the fields' types, which the metadata API
 * gives (airtable-schema.ts), then List records followed page by page to count the matches, up
 * to a cap (airtable-records.ts). Every request goes through `context.request`, the host's
 * SSRF-guarded request, with the token (airtable-client.ts).
 */
import { definePlugin, inferFields, PLUGIN_API_VERSION } from "sitevoice";
import type {
  AdapterQuery,
  CollectionIntrospection,
  CollectionSpec,
  DataAdapter,
  PluginContext,
  SearchOptions,
  SearchResult,
} from "sitevoice";
import type { AirtableAdapterConfig } from "./generated/config.ts";
import configSchema from "./config.schema.json" with { type: "json" };
import { AirtableClient } from "./airtable-client.ts";
import { FormulaError, searchFormula, type FormulaField } from "./airtable-formula.ts";
import { itemOf, PAGE_SIZE, readPages, recordsUrl, type RecordsQuery } from "./airtable-records.ts";
import {
  fieldKind,
  fieldType,
  parseTables,
  TableSchemas,
  type AirtableTable,
  type Answer,
} from "./airtable-schema.ts";

export type AirtableConfig = AirtableAdapterConfig;

export const DEFAULT_API_URL = "https://api.airtable.com";
/** What the adapter asks for: reading records, and the tables' field types. */
export const AIRTABLE_SCOPES = ["data.records:read", "schema.bases:read"];

/** Kinds Airtable sorts by: the ones that break a sort's ties (see `#sort`). */
const TIE_BREAKING = new Set(["text", "number", "checkbox", "date"]);

/** Where the config sends the token: the API's origin and the base. */
const baseUrlOf = (config: AirtableConfig) =>
  `${new URL(config.apiUrl ?? DEFAULT_API_URL).origin}/v0/${config.baseId}`;

export class AirtableAdapter implements DataAdapter {
  readonly #origin: string;
  readonly #baseUrl: string;
  readonly #client: AirtableClient;
  readonly #schemas: TableSchemas;

  constructor(config: AirtableConfig, context: PluginContext) {
    if (context.oauth === undefined) {
      throw new Error(
        "the Airtable adapter reads Airtable with the site's OAuth connection, but the host " +
          "gave it none (context.oauth): it must be loaded by a host that runs OAuth adapters",
      );
    }
    this.#origin = new URL(config.apiUrl ?? DEFAULT_API_URL).origin;
    this.#baseUrl = baseUrlOf(config);
    this.#client = new AirtableClient({
      request: context.request,
      oauth: context.oauth,
      timeoutMs:
        config.timeoutMs !== undefined && config.timeoutMs < context.deadlineMs
          ? config.timeoutMs
          : undefined,
      logger: context.logger,
    });
    this.#schemas = new TableSchemas({
      load: (signal) => this.#loadTables(config.baseId, signal),
      now: context.now,
      deadlineMs: context.deadlineMs,
    });
  }

  async search(
    collection: CollectionSpec,
    query: AdapterQuery,
    { signal }: SearchOptions,
  ): Promise<SearchResult> {
    const found = await this.#schemas.table(collection.source, namedFields(query), signal);
    if (!found.ok) return { success: false, error: found.error };
    const table = found.value;
    let formula: string | undefined;
    try {
      formula = searchFormula(query, (name) => formulaField(table, name));
    } catch (error) {
      if (error instanceof FormulaError) return { success: false, error: error.message };
      throw error;
    }
    const recordsQuery = { formula, sort: this.#sort(query, table), fields: query.fields };
    const url = recordsUrl(this.#baseUrl, collection.source, recordsQuery);
    const pages = await readPages(this.#client, url, query.limit, signal);
    if (!pages.ok) return { success: false, error: pages.error };
    const checkboxes = query.fields.filter((name) => formulaField(table, name).kind === "checkbox");
    return {
      success: true,
      total: pages.value.counted,
      items: pages.value.records.map((record) => itemOf(record, checkboxes)),
    };
  }

  /** Each field of the table with its type, samples from the first page, and the record count. */
  async introspect(
    collection: CollectionSpec,
    { signal }: SearchOptions,
  ): Promise<CollectionIntrospection> {
    const found = await this.#schemas.table(collection.source, [], signal);
    if (!found.ok) throw new Error(found.error);
    const table = found.value;
    const url = recordsUrl(this.#baseUrl, collection.source, { sort: [] });
    const pages = await readPages(this.#client, url, PAGE_SIZE, signal);
    if (!pages.ok) throw new Error(pages.error);
    const checkboxes = table.fields.filter((f) => fieldKind(f) === "checkbox").map((f) => f.name);
    const items = pages.value.records.map((record) => itemOf(record, checkboxes));
    const samples = new Map(inferFields(items).map((field) => [field.name, field.sample]));
    const introspection: CollectionIntrospection = {
      name: collection.name,
      source: collection.source,
      fields: table.fields.map((field) => {
        const sample = samples.get(field.name);
        const type = fieldType(field);
        return sample === undefined
          ? { name: field.name, type }
          : { name: field.name, type, sample };
      }),
    };
    // Past the cap the count is only a lower bound: no count is better than a wrong one.
    if (pages.value.complete) introspection.recordCount = pages.value.counted;
    return introspection;
  }

  /** The token must be accepted, with the scopes asked for, and the base's tables readable. */
  async test({ signal }: SearchOptions): Promise<void> {
    const whoami = await this.#client.getJson(new URL(`${this.#origin}/v0/meta/whoami`), signal);
    if (!whoami.ok) throw new Error(`the Airtable connection does not work: ${whoami.error}`);
    const scopes = (whoami.value as { scopes?: unknown } | null)?.scopes;
    const missing = Array.isArray(scopes)
      ? AIRTABLE_SCOPES.filter((scope) => !scopes.includes(scope))
      : [];
    if (missing.length > 0) {
      throw new Error(
        `the Airtable connection lacks the scope ${missing.join(", ")}: reconnect Airtable for this site`,
      );
    }
    const tables = await this.#schemas.tables(signal);
    if (!tables.ok) throw new Error(`the Airtable base cannot be read: ${tables.error}`);
  }

  /**
   * The sort asked for, then each returned field Airtable can sort by, ascending: ties are
   * ordered by the returned fields (as core/search/in-memory-search.ts orders them), so the
   * records a limit keeps do not depend on Airtable's order. No sort keeps Airtable's order.
   */
  #sort(query: AdapterQuery, table: AirtableTable): RecordsQuery["sort"] {
    if (query.sort === undefined) return [];
    const { field: sorted } = query.sort;
    const ties = query.fields.filter(
      (name) => name !== sorted && TIE_BREAKING.has(formulaField(table, name).kind),
    );
    return [query.sort, ...ties.map((field) => ({ field, direction: "asc" as const }))];
  }

  async #loadTables(baseId: string, signal: AbortSignal): Promise<Answer<AirtableTable[]>> {
    const url = new URL(`${this.#origin}/v0/meta/bases/${baseId}/tables`);
    const answer = await this.#client.getJson(url, signal);
    if (!answer.ok) return answer;
    const tables = parseTables(answer.value);
    if (tables === undefined) {
      return { ok: false, error: "Airtable answered JSON that is not a list of tables" };
    }
    return { ok: true, value: tables };
  }
}

/** Every field a search names: its filters, sort, returned fields and, with text, searchable ones. */
function namedFields(query: AdapterQuery): string[] {
  return [
    ...new Set([
      ...query.filters.map((filter) => filter.field),
      ...(query.text ? query.searchFields : []),
      ...(query.sort ? [query.sort.field] : []),
      ...query.fields,
    ]),
  ];
}

/** A field of `table` (checked present by TableSchemas.table) as formulas see it. */
function formulaField(table: AirtableTable, name: string): FormulaField {
  const field = table.fields.find((f) => f.name === name);
  return { name, kind: field === undefined ? "other" : fieldKind(field) };
}

export default definePlugin<"adapter", AirtableConfig>({
  kind: "adapter",
  name: "adapter-airtable",
  apiVersion: PLUGIN_API_VERSION,
  type: "airtable",
  configSchema,
  // Tokens are bound to the API's origin and the base: a config pointed elsewhere must reconnect.
  destination: baseUrlOf,
  // Airtable's OAuth reference documents no RFC 7009 revocation endpoint, so none is declared.
  oauth: {
    authorizationUrl: "https://airtable.com/oauth2/v1/authorize",
    tokenUrl: "https://airtable.com/oauth2/v1/token",
    scopes: AIRTABLE_SCOPES,
    clientAuthentication: "client_secret_basic",
  },
  create: (config, context) => new AirtableAdapter(config, context),
});
