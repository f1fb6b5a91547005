/**
 * Search over records held in memory, with the semantics every adapter shares (the conformance
 * kit's): `eq` exact, `contains` and free text a case-insensitive substring (so % and _ are plain
 * characters), numbers compared as numbers, ISO dates as strings, every filter must hold, a stable
 * sort, `total` counting every match and `items` at most `limit`. Used by adapters whose backend
 * cannot filter (the REST adapter's client-filter mode) and by anything that wants the same rules,
 * plus the field-type inference of schema introspection.
 *
 * Records come from customers' APIs, so values are loosely typed: a number may arrive as "799.00"
 * (Django's DecimalField does that) and still compares as a number with a number. A record whose
 * field is missing or null matches no filter, not even `neq`, as NULL does in SQL, so all adapters
 * agree. Ties of a sort are ordered by the returned fields, as the SQL adapters order them by the
 * key or those fields, so which records make the limit does not depend on the backend's order.
 */
import type { AdapterQuery, FieldType, Filter } from "./search-types.ts";

export type InMemoryQuery = Pick<AdapterQuery, "text" | "searchFields" | "filters" | "sort"> & {
  limit: number;
  /** The fields returned; they order ties of the sort (see sortOrder). */
  fields?: readonly string[];
};

export interface InMemoryResult<T> {
  /** Every record that matches. */
  total: number;
  /** The first `limit` matches, sorted. */
  items: T[];
}

type Scalar = string | number | boolean;

/** The matches of `query` among `records`: filtered, text-matched, sorted and cut to `limit`. */
export function searchInMemory<T extends object>(
  records: readonly T[],
  query: InMemoryQuery,
): InMemoryResult<T> {
  const text = query.text?.trim().toLowerCase();
  const found = records.filter(
    (record) =>
      query.filters.every((filter) => matchesFilter(record, filter)) &&
      (!text || query.searchFields.some((field) => containsText(valueOf(record, field), text))),
  );
  // Without a sort the backend's order is kept: it often means something (a menu's order, a
  // ranking), unlike a SQL table's, which is the order the plan happens to read rows in.
  if (query.sort !== undefined) found.sort(sortOrder(query.sort, query.fields ?? []));
  return { total: found.length, items: found.slice(0, Math.max(0, query.limit)) };
}

/**
 * The order of a sorted search: the sort field in its direction, then, for ties, each returned
 * field ascending in its listed order, so that the records that make the limit are the same
 * whatever order the backend sent them in. Records alike in all of these keep the backend's
 * order (Array.prototype.sort is stable).
 */
function sortOrder(
  sort: NonNullable<AdapterQuery["sort"]>,
  fields: readonly string[],
): (a: object, b: object) => number {
  const terms = [
    { field: sort.field, sign: sort.direction === "desc" ? -1 : 1 },
    ...fields.filter((field) => field !== sort.field).map((field) => ({ field, sign: 1 })),
  ];
  return (a, b) => {
    for (const { field, sign } of terms) {
      const order = compareField(valueOf(a, field), valueOf(b, field), sign);
      if (order !== 0) return order;
    }
    return 0;
  };
}

/**
 * Two values of one field, ascending (`sign` 1) or descending (-1). Missing values go last in
 * either direction: they say nothing about the order asked for.
 */
function compareField(x: unknown, y: unknown, sign: number): number {
  if (isMissing(x) || isMissing(y)) return Number(isMissing(x)) - Number(isMissing(y));
  return sign * compareValues(x, y);
}

/** Whether `record` satisfies one filter. */
export function matchesFilter(record: object, filter: Filter): boolean {
  const actual = valueOf(record, filter.field);
  if (isMissing(actual)) return false;
  const expected = filter.value as Scalar | Scalar[];
  switch (filter.operator) {
    case "eq":
      return !Array.isArray(expected) && isEqual(actual, expected);
    case "neq":
      return !Array.isArray(expected) && !isEqual(actual, expected);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      if (Array.isArray(expected)) return false;
      const order = compareWith(actual, expected);
      if (order === undefined) return false;
      if (filter.operator === "gt") return order > 0;
      if (filter.operator === "gte") return order >= 0;
      if (filter.operator === "lt") return order < 0;
      return order <= 0;
    }
    case "contains":
      return !Array.isArray(expected) && containsText(actual, String(expected).toLowerCase());
    case "in":
      return Array.isArray(expected) && expected.some((value) => isEqual(actual, value));
    default:
      return false;
  }
}

/**
 * The sort order of two present values: numbers (and numeric strings) numerically, booleans false
 * first, ISO dates as strings, other strings by locale with digit runs as numbers; values of
 * different kinds group by kind.
 */
export function compareValues(a: unknown, b: unknown): number {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return x - y;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (typeof a === "string" && typeof b === "string") {
    if (isIsoDate(a) && isIsoDate(b)) return codePointOrder(a, b);
    return collator.compare(a, b) || codePointOrder(a, b);
  }
  const kind = kindRank(a) - kindRank(b);
  if (kind !== 0) return kind;
  return codePointOrder(JSON.stringify(a) ?? "", JSON.stringify(b) ?? "");
}

/** The SiteIntelligence type of one value: `date` for ISO date and date-time strings. */
export function fieldTypeOf(value: unknown): FieldType {
  if (isMissing(value)) return "unknown";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? "number" : "unknown";
    case "boolean":
      return "boolean";
    case "string":
      return isIsoDate(value) ? "date" : "string";
    case "object":
      return "object";
    default:
      return "unknown";
  }
}

export interface InferredField {
  name: string;
  type: FieldType;
  sample?: unknown;
}

const MAX_SAMPLE_STRING = 120;
const MAX_SAMPLE_JSON = 300;

/**
 * Each field found in `records` (in order of first appearance) with its type and a sample value.
 * A field whose values disagree is `string` when they are strings and dates, else `unknown`; one
 * that is only ever null is `unknown`. Samples are kept short: they end up in the assistant's
 * prompt.
 */
export function inferFields(records: readonly object[]): InferredField[] {
  const seen = new Map<string, { types: Set<FieldType>; sample: unknown }>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record)) {
      let entry = seen.get(name);
      if (entry === undefined) {
        entry = { types: new Set(), sample: undefined };
        seen.set(name, entry);
      }
      const type = fieldTypeOf(value);
      if (type === "unknown") continue;
      entry.types.add(type);
      entry.sample ??= value;
    }
  }
  return [...seen].map(([name, { types, sample }]) => {
    const type = combinedType(types);
    const field: InferredField = { name, type };
    const shown = type === "unknown" ? undefined : shortSample(sample);
    if (shown !== undefined) field.sample = shown;
    return field;
  });
}

function combinedType(types: Set<FieldType>): FieldType {
  if (types.size === 1) return [...types][0] as FieldType;
  if (types.size === 2 && types.has("string") && types.has("date")) return "string";
  return "unknown";
}

function shortSample(value: unknown): unknown {
  if (typeof value === "string") {
    return value.length > MAX_SAMPLE_STRING ? `${value.slice(0, MAX_SAMPLE_STRING)}…` : value;
  }
  if (typeof value === "object" && value !== null) {
    const json = JSON.stringify(value);
    return json.length > MAX_SAMPLE_JSON ? undefined : value;
  }
  return value;
}

const collator = new Intl.Collator(undefined, { numeric: true });

const codePointOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Own properties only: a field named like an Object.prototype member is just absent. */
const valueOf = (record: object, field: string): unknown =>
  Object.hasOwn(record, field) ? (record as Record<string, unknown>)[field] : undefined;

const isMissing = (value: unknown): value is null | undefined =>
  value === null || value === undefined;

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A number, or a string that is exactly one (as JSON APIs send decimals); else undefined. */
function asNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && NUMERIC.test(value.trim())) return Number(value);
  return undefined;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

/** An ISO 8601 date or date-time that names a real day. */
export function isIsoDate(value: string): boolean {
  return ISO_DATE.test(value) && !Number.isNaN(Date.parse(value.slice(0, 10)));
}

function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}

/** `eq`: the same string exactly; numbers and booleans also across their string forms. */
function isEqual(actual: unknown, expected: Scalar): boolean {
  if (typeof expected === "string" && typeof actual === "string") return actual === expected;
  if (typeof expected === "number" || typeof actual === "number") {
    const x = asNumber(actual);
    const y = asNumber(expected);
    return x !== undefined && y !== undefined && x === y;
  }
  if (typeof expected === "boolean" || typeof actual === "boolean") {
    const x = asBoolean(actual);
    return x !== undefined && x === asBoolean(expected);
  }
  return false;
}

/** The order of a record's value against a filter value, or undefined when they do not compare. */
function compareWith(actual: unknown, expected: Scalar): number | undefined {
  if (typeof expected === "number" || typeof actual === "number") {
    const x = asNumber(actual);
    const y = asNumber(expected);
    return x === undefined || y === undefined ? undefined : Math.sign(x - y);
  }
  if (typeof expected === "string" && typeof actual === "string") {
    const x = asNumber(actual);
    const y = asNumber(expected);
    if (x !== undefined && y !== undefined) return Math.sign(x - y);
    // ISO dates (and date-times against a date) order correctly as plain strings.
    return codePointOrder(actual, expected);
  }
  if (typeof expected === "boolean" || typeof actual === "boolean") {
    const x = asBoolean(actual);
    const y = asBoolean(expected);
    return x === undefined || y === undefined ? undefined : Number(x) - Number(y);
  }
  return undefined;
}

/** Case-insensitive substring of a string or number, or of any element of an array of them. */
function containsText(value: unknown, lowerNeedle: string): boolean {
  if (typeof value === "string" || typeof value === "number") {
    return String(value).toLowerCase().includes(lowerNeedle);
  }
  if (Array.isArray(value)) return value.some((item) => containsText(item, lowerNeedle));
  return false;
}

function kindRank(value: unknown): number {
  if (asNumber(value) !== undefined) return 0;
  if (typeof value === "boolean") return 1;
  if (typeof value === "string") return 2;
  return 3;
}
