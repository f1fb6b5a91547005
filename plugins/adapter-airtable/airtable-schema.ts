/**
 * What the adapter knows of a base's tables, from Airtable's metadata API (`GET
 * /v0/meta/bases/{baseId}/tables`, scope `schema.bases:read`): each field's Airtable type, read
 * as the kind a formula needs (airtable-formula.ts) and as the FieldType introspection reports.
 * A record says nothing of an empty field (Airtable leaves it out), so its type can only come
 * from here.
 *
 * The tables are fetched once per instance and kept SCHEMA_TTL_MS; a table or field a search
 * names that is not in them fetches them again (at most every MIN_RELOAD_MS, so a wrong
 * collection does not hammer Airtable), for a base whose owner just added one. Concurrent
 * searches share one fetch, which is bounded by the host's deadline rather than by any one
 * search's signal, so a visitor leaving does not fail the others waiting on it.
 */
import type { FieldType } from "sitevoice";
import type { FieldKind } from "./airtable-formula.ts";

/** How long fetched tables are used before they are fetched again. */
export const SCHEMA_TTL_MS = 5 * 60_000;
/** The least time between two fetches caused by a name the tables did not have. */
export const MIN_RELOAD_MS = 10_000;

export interface AirtableField {
  id: string;
  name: string;
  type: string;
  /** For formula, rollup and lookup fields, `result.type` is the type of what they compute. */
  options?: { result?: { type?: unknown } | null } | null;
}

export interface AirtableTable {
  id: string;
  name: string;
  primaryFieldId: string;
  fields: AirtableField[];
}

/** A failure the site owner reads, never a credential. */
export type Answer<T> = { ok: true; value: T } | { ok: false; error: string };

/** How each Airtable field type takes part in formulas, and what introspection calls it. */
const TYPES: Record<string, { kind: FieldKind; type: FieldType }> = {};
const define = (kind: FieldKind, type: FieldType, names: string[]) => {
  for (const name of names) TYPES[name] = { kind, type };
};
define("text", "string", [
  ...["singleLineText", "multilineText", "richText", "email", "url", "phoneNumber"],
  "singleSelect",
]);
define("number", "number", [
  ...["number", "currency", "percent", "rating", "duration", "autoNumber", "count"],
]);
define("checkbox", "boolean", ["checkbox"]);
define("date", "date", ["date", "dateTime", "createdTime", "lastModifiedTime"]);
define("other", "array", [
  ...["multipleSelects", "multipleRecordLinks", "multipleAttachments", "multipleCollaborators"],
  "multipleLookupValues",
]);
define("other", "object", [
  ...["singleCollaborator", "createdBy", "lastModifiedBy", "barcode", "button", "aiText"],
]);

/** Types whose value is computed: what they compute decides. A lookup's is always a list. */
const COMPUTED = new Set(["formula", "rollup"]);

function typeOf(field: AirtableField): { kind: FieldKind; type: FieldType } {
  const result = field.options?.result?.type;
  if (COMPUTED.has(field.type) && typeof result === "string") {
    return TYPES[result] ?? { kind: "other", type: "unknown" };
  }
  return TYPES[field.type] ?? { kind: "other", type: "unknown" };
}

export const fieldKind = (field: AirtableField): FieldKind => typeOf(field).kind;
export const fieldType = (field: AirtableField): FieldType => typeOf(field).type;

/** The tables of a metadata answer, or undefined when it is not one. */
export function parseTables(json: unknown): AirtableTable[] | undefined {
  const tables = isObject(json) ? json.tables : undefined;
  if (!Array.isArray(tables) || !tables.every(isTable)) return undefined;
  return tables;
}

function isTable(value: unknown): value is AirtableTable {
  return (
    isObject(value) &&
    typeof value.id === "string" &&
    typeof value.name === "string" &&
    Array.isArray(value.fields) &&
    value.fields.every(
      (field) =>
        isObject(field) &&
        typeof field.id === "string" &&
        typeof field.name === "string" &&
        typeof field.type === "string",
    )
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A table by id or by name, as Airtable's URLs take either. */
const findTable = (tables: AirtableTable[], source: string) =>
  tables.find((table) => table.id === source) ?? tables.find((table) => table.name === source);

const missingFields = (table: AirtableTable, names: readonly string[]) =>
  names.filter((name) => !table.fields.some((field) => field.name === name));

/** The tables of one base, fetched as the header says. */
export class TableSchemas {
  readonly #load: (signal: AbortSignal) => Promise<Answer<AirtableTable[]>>;
  readonly #now: () => number;
  readonly #deadlineMs: number;
  #tables: { value: AirtableTable[]; at: number } | undefined;
  #loading: Promise<Answer<AirtableTable[]>> | undefined;

  constructor(options: {
    load: (signal: AbortSignal) => Promise<Answer<AirtableTable[]>>;
    now: () => number;
    deadlineMs: number;
  }) {
    this.#load = options.load;
    this.#now = options.now;
    this.#deadlineMs = options.deadlineMs;
  }

  /**
   * The table named `source` (an id or a name), which must have every field of `fields`. A
   * rejection of the fetch (the site is not connected) goes through to the caller.
   */
  async table(
    source: string,
    fields: readonly string[],
    signal: AbortSignal,
  ): Promise<Answer<AirtableTable>> {
    const cached = this.#tables;
    let tables: Answer<AirtableTable[]> =
      cached !== undefined && this.#now() - cached.at < SCHEMA_TTL_MS
        ? { ok: true, value: cached.value }
        : await this.tables(signal);
    if (!tables.ok) return tables;
    let table = findTable(tables.value, source);
    const stale = this.#now() - (this.#tables?.at ?? 0) >= MIN_RELOAD_MS;
    if ((table === undefined || missingFields(table, fields).length > 0) && stale) {
      tables = await this.tables(signal);
      if (!tables.ok) return tables;
      table = findTable(tables.value, source);
    }
    if (table === undefined) {
      const names = tables.value.map((t) => t.name).join(", ");
      return { ok: false, error: `the base has no table "${source}" (its tables: ${names})` };
    }
    const missing = missingFields(table, fields);
    if (missing.length > 0) {
      const list = missing.map((name) => `"${name}"`).join(", ");
      return { ok: false, error: `Airtable table "${table.name}" has no field ${list}` };
    }
    return { ok: true, value: table };
  }

  /** The tables fetched now (joining a fetch under way), kept when the fetch succeeds. */
  async tables(signal: AbortSignal): Promise<Answer<AirtableTable[]>> {
    this.#loading ??= this.#fetch().finally(() => (this.#loading = undefined));
    return await untilAborted(this.#loading, signal);
  }

  async #fetch(): Promise<Answer<AirtableTable[]>> {
    const answer = await this.#load(AbortSignal.timeout(this.#deadlineMs));
    if (answer.ok) this.#tables = { value: answer.value, at: this.#now() };
    return answer;
  }
}

/** `promise`, or a failure as soon as `signal` aborts (the shared fetch goes on for others). */
function untilAborted<T>(promise: Promise<Answer<T>>, signal: AbortSignal): Promise<Answer<T>> {
  const cancelled = { ok: false as const, error: "the request to Airtable was cancelled" };
  if (signal.aborted) return Promise.resolve(cancelled);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(cancelled);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
