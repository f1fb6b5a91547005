/**
 * The tables of the Airtable stand-in (airtable-standin.ts) and List records on them, as
 * Airtable's Web API reference describes it: `filterByFormula` (airtable-formula.ts), `sort[n][field]`
 * and `sort[n][direction]`, `fields[]` (names or ids), `pageSize` (1 to 100, default 100),
 * `maxRecords`, and `offset`, an opaque cursor of a previous page. Records come back as `{id,
 * createdTime, fields}` with every empty value left out of `fields`: "", [], null and false (an
 * unchecked checkbox).
 *
 * Sorting by a field orders its type's values (text by a case-insensitive collation, numbers,
 * dates, checkboxes false first); a blank is the least value, first ascending and last
 * descending; ties keep the table's order, which is the order rows were given in.
 */
import { fieldsOf, FormulaSyntaxError, parseFormula } from "./airtable-formula.ts";
import {
  DateValue,
  evaluate,
  FormulaEvalError,
  isTruthy,
  type FormulaValue,
} from "./airtable-formula-functions.ts";

export interface AirtableFieldSpec {
  id?: string;
  name: string;
  /** Airtable's type name: singleLineText, number, currency, checkbox, date, … */
  type: string;
  options?: Record<string, unknown>;
}

export interface AirtableTableSpec {
  id?: string;
  name: string;
  /** The first field is the primary field. */
  fields: AirtableFieldSpec[];
  /** Values by field name, in the table's order. */
  rows: Record<string, unknown>[];
}

export interface StandinTable {
  id: string;
  name: string;
  fields: Required<Pick<AirtableFieldSpec, "id" | "name" | "type">>[];
  options: Map<string, Record<string, unknown> | undefined>;
  records: { id: string; createdTime: string; values: Record<string, unknown> }[];
}

/** An Airtable error: the HTTP status and the `{error: {type, message}}` body. */
export class AirtableError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

let serial = 0;
/** An id as Airtable makes them: a prefix and 14 letters or digits. */
export const newId = (prefix: string) =>
  `${prefix}${(++serial).toString(36).padStart(14, "0").slice(-14)}`;

export function makeTable(spec: AirtableTableSpec): StandinTable {
  const fields = spec.fields.map((f) => ({ id: f.id ?? newId("fld"), name: f.name, type: f.type }));
  return {
    id: spec.id ?? newId("tbl"),
    name: spec.name,
    fields,
    options: new Map(spec.fields.map((f) => [f.name, f.options])),
    records: spec.rows.map((values) => ({
      id: newId("rec"),
      createdTime: "2024-06-01T09:00:00.000Z",
      values,
    })),
  };
}

const DATE_TYPES = new Set(["date", "dateTime", "createdTime", "lastModifiedTime"]);

const isEmpty = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === "" ||
  value === false ||
  (Array.isArray(value) && value.length === 0);

/** A stored value as formulas see it: a checkbox is never blank, a date a DateValue. */
function formulaValue(type: string, value: unknown): FormulaValue {
  if (type === "checkbox") return value === true;
  if (isEmpty(value)) return null;
  if (DATE_TYPES.has(type)) {
    const day = type === "date";
    return new DateValue(Date.parse(day ? `${value}T00:00:00Z` : String(value)), day);
  }
  if (Array.isArray(value)) return value.map((item) => formulaValue("", item));
  if (typeof value === "object") return JSON.stringify(value);
  return value as string | number;
}

/** Iterators handed out as `offset`: where the next page starts. */
const iterators = new Map<string, number>();

const unknownField = (name: string) =>
  new AirtableError(422, "UNKNOWN_FIELD_NAME", `Unknown field name: "${name}"`);
const invalidRequest = () =>
  new AirtableError(
    422,
    "INVALID_REQUEST_UNKNOWN",
    "Invalid request: parameter validation failed. Check your request data.",
  );

function integer(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
  fallback: number,
) {
  const text = params.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw invalidRequest();
  return value;
}

/** One page of List records; throws AirtableError for what Airtable refuses. */
export function listRecords(table: StandinTable, params: URLSearchParams) {
  const byName = new Map(table.fields.map((f) => [f.name, f]));
  const named = (nameOrId: string) =>
    byName.get(nameOrId) ?? table.fields.find((f) => f.id === nameOrId);
  const pageSize = integer(params, "pageSize", 1, 100, 100);
  const maxRecords = integer(params, "maxRecords", 1, Number.MAX_SAFE_INTEGER, Infinity);
  const fields = params.getAll("fields[]").map((name) => named(name) ?? raise(unknownField(name)));

  let records = table.records;
  const formula = params.get("filterByFormula");
  if (formula !== null && formula.trim() !== "") {
    const keep = compileFilter(formula, (name) => byName.get(name)?.type);
    records = records.filter(keep);
  }
  records = sortRecords(records, sortOf(params, named));

  const offset = params.get("offset");
  const start = offset === null ? 0 : iterators.get(offset);
  if (start === undefined) {
    throw new AirtableError(
      422,
      "LIST_RECORDS_ITERATOR_NOT_AVAILABLE",
      "The offset is no longer valid: start the list again",
    );
  }
  const end = Math.min(start + pageSize, records.length, maxRecords);
  const page = records.slice(start, end).map((record) => ({
    id: record.id,
    createdTime: record.createdTime,
    fields: Object.fromEntries(
      (fields.length > 0 ? fields : table.fields)
        .map((f) => [f.name, record.values[f.name]])
        .filter(([, value]) => !isEmpty(value)),
    ),
  }));
  if (end >= Math.min(records.length, maxRecords)) return { records: page };
  const next = `${newId("itr")}/${records[end]!.id}`;
  iterators.set(next, end);
  return { records: page, offset: next };
}

function raise(error: Error): never {
  throw error;
}

/** The record test of a formula; 422 INVALID_FILTER_BY_FORMULA when it is not one. */
function compileFilter(formula: string, typeOf: (name: string) => string | undefined) {
  const invalid = (reason: string) =>
    new AirtableError(
      422,
      "INVALID_FILTER_BY_FORMULA",
      `The formula for filtering records is invalid: ${reason}`,
    );
  let tree;
  try {
    tree = parseFormula(formula);
  } catch (error) {
    if (!(error instanceof FormulaSyntaxError)) throw error;
    throw invalid("Invalid formula. Please check your formula text.");
  }
  const unknown = [...new Set(fieldsOf(tree).filter((name) => typeOf(name) === undefined))];
  if (unknown.length > 0) throw invalid(`Unknown field names: ${unknown.join(", ")}`);
  return (record: StandinTable["records"][number]) => {
    try {
      return isTruthy(evaluate(tree, (name) => formulaValue(typeOf(name)!, record.values[name])));
    } catch (error) {
      if (error instanceof FormulaEvalError) return false; // #ERROR!
      throw error;
    }
  };
}

type Sort = { field: StandinTable["fields"][number]; sign: number };

function sortOf(params: URLSearchParams, named: (name: string) => Sort["field"] | undefined) {
  const sorts: Sort[] = [];
  for (let index = 0; params.has(`sort[${index}][field]`); index++) {
    const name = params.get(`sort[${index}][field]`)!;
    const direction = params.get(`sort[${index}][direction]`) ?? "asc";
    if (direction !== "asc" && direction !== "desc") throw invalidRequest();
    sorts.push({
      field: named(name) ?? raise(unknownField(name)),
      sign: direction === "asc" ? 1 : -1,
    });
  }
  return sorts;
}

const collator = new Intl.Collator("en", { sensitivity: "base" });

function sortRecords(records: StandinTable["records"], sorts: Sort[]) {
  const order = (type: string, a: unknown, b: unknown): number => {
    const [x, y] = [formulaValue(type, a), formulaValue(type, b)];
    if (x === null || y === null) return Number(y === null) - Number(x === null);
    if (x instanceof DateValue && y instanceof DateValue) return x.time - y.time;
    if (typeof x === "number" && typeof y === "number") return x - y;
    if (typeof x === "boolean" && typeof y === "boolean") return Number(x) - Number(y);
    return collator.compare(String(x), String(y));
  };
  // Array.prototype.sort is stable: ties keep the table's order.
  return [...records].sort((a, b) => {
    for (const { field, sign } of sorts) {
      const result = order(field.type, a.values[field.name], b.values[field.name]);
      if (result !== 0) return sign * result;
    }
    return 0;
  });
}
