/**
 * How a search becomes Airtable's `filterByFormula`: each filter, and the free text, as a formula
 * over the table's fields, written for each field's Airtable type (its kind, airtable-schema.ts),
 * with the semantics every adapter shares (core/search/in-memory-search.ts): `eq` exact, `contains`
 * and free text a case-insensitive substring (so % and _ are plain characters), numbers compared
 * as numbers, and a blank field matching no filter, not even `neq`, as NULL in SQL. Airtable
 * compares a blank with a number as 0 and with text as "", so every filter but a checkbox's first
 * asks for a value: `LEN({field} & "") > 0` (a 0 is "0", a blank "").
 *
 * Values are a visitor's words: they only ever enter a formula as literals.
 * - Text: in double quotes, with a backslash before each `\` and `"`, and a newline written `\n`.
 *   Airtable's formula field reference puts text in quotes and names in braces but does not spell
 *   out escapes; these rules are those of the clients written against the live API: pyAirtable's
 *   `quoted()` (a backslash before the backslash and the quote) and M. Coles's helper
 *   (mrcoles.com, "How to escape variables in formulas with the Airtable API": the same in
 *   double quotes, newlines as `\n`). So `x") , TRUE(), ("` stays one string.
 * - Numbers: plain decimals (never `1e21`). Booleans: `TRUE()`, `FALSE()`.
 * - Dates: `DATETIME_PARSE("2024-01-20")` of the checked ISO text, as pyAirtable writes them.
 * Field names come from the site's config (every one a field of the collection) and are written
 * `{name}` with each `}` escaped as `\}` (pyAirtable's `field_name()`).
 */
import type { AdapterQuery, Filter } from "sitevoice";

/** How a field takes part in a formula: what Airtable's field type makes of it. */
export type FieldKind = "text" | "number" | "checkbox" | "date" | "other";

export interface FormulaField {
  name: string;
  kind: FieldKind;
}

/** A search the adapter cannot write as an Airtable formula; the message says why. */
export class FormulaError extends Error {}

const TRUE = "TRUE()";
const FALSE = "FALSE()";

/** A text literal: see the header for the escaping rules. */
export function stringLiteral(value: string): string {
  const escaped = value.replace(/[\\"]/g, (char) => `\\${char}`).replace(/\n/g, "\\n");
  return `"${escaped}"`;
}

/**
 * A reference to a field. A name ending in a backslash cannot be written (its `\}` would read as
 * an escaped brace), so it is refused rather than sent.
 */
export function fieldReference(name: string): string {
  if (name.endsWith("\\")) {
    throw new FormulaError(`field "${name}" ends with a backslash, which a formula cannot name`);
  }
  return `{${name.replace(/}/g, "\\}")}}`;
}

/** A number as Airtable reads one: a plain decimal. */
export function numberLiteral(value: number): string {
  return value.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });
}

/** The formula of a whole search, or undefined when nothing filters it. */
export function searchFormula(
  query: AdapterQuery,
  fieldOf: (name: string) => FormulaField,
): string | undefined {
  const parts = query.filters.map((filter) => filterFormula(filter, fieldOf(filter.field)));
  if (query.text !== undefined && query.text !== "") {
    parts.push(textFormula(query.text, query.searchFields.map(fieldOf)));
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : `AND(${parts.join(", ")})`;
}

/** Free text: a case-insensitive substring of any of `fields` (checkboxes hold no text). */
export function textFormula(text: string, fields: FormulaField[]): string {
  const terms = fields
    .filter((field) => field.kind !== "checkbox")
    .map((field) => `FIND(LOWER(${stringLiteral(text)}), LOWER(${asText(field)})) > 0`);
  if (terms.length === 0) return FALSE;
  return terms.length === 1 ? (terms[0] as string) : `OR(${terms.join(", ")})`;
}

/** One filter on one field. */
export function filterFormula(filter: Filter, field: FormulaField): string {
  if (field.kind === "checkbox") return checkboxFormula(filter, field);
  const condition = valueCondition(filter, field);
  if (condition === FALSE) return FALSE;
  const present = `LEN(${fieldReference(field.name)} & "") > 0`;
  return condition === TRUE ? present : `AND(${present}, ${condition})`;
}

/** The filter's test of a present value; TRUE or FALSE when the value decides it alone. */
function valueCondition(filter: Filter, field: FormulaField): string {
  const values = Array.isArray(filter.value) ? filter.value : [filter.value];
  if (filter.operator === "contains") {
    const needle = String(values[0]);
    if (needle === "") return TRUE;
    return `FIND(LOWER(${stringLiteral(needle)}), LOWER(${asText(field)})) > 0`;
  }
  if (filter.operator === "in") {
    const terms = values.map((value) => comparison("eq", value, field)).filter((t) => t !== FALSE);
    if (terms.length === 0) return FALSE;
    return terms.length === 1 ? (terms[0] as string) : `OR(${terms.join(", ")})`;
  }
  return comparison(filter.operator, values[0], field);
}

type Comparator = "eq" | "neq" | "gt" | "gte" | "lt" | "lte";

const OPERATOR: Record<Comparator, string> = {
  eq: "=",
  neq: "!=",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
};

/** `field <operator> value` for a text, number, date or other field. */
function comparison(operator: Comparator, value: unknown, field: FormulaField): string {
  const ref = fieldReference(field.name);
  if (field.kind === "number") {
    const number = asNumber(value);
    // A value that is no number equals no number: `neq` holds for every present value.
    if (number === undefined) return operator === "neq" ? TRUE : FALSE;
    return `${ref} ${OPERATOR[operator]} ${numberLiteral(number)}`;
  }
  if (field.kind === "date") return dateComparison(operator, value, ref);
  if (operator !== "eq" && operator !== "neq") {
    throw new FormulaError(
      `"${operator}" on field "${field.name}" is not supported: Airtable formulas order numbers ` +
        "and dates, and compare text only for equality",
    );
  }
  // Text compares as written; a list or an object (multiple selects, links) as Airtable's text of it.
  const left = field.kind === "text" ? ref : `(${ref} & "")`;
  return `${left} ${OPERATOR[operator]} ${stringLiteral(String(value))}`;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * A date filter. A day (`2024-01-20`) compares by the day, so `gt` is after that day and `eq`
 * any time on it; a date-time compares to the millisecond. A value that is neither matches
 * nothing (`neq`: every present value).
 */
function dateComparison(operator: Comparator, value: unknown, ref: string): string {
  const text = typeof value === "string" ? value : "";
  const isDay = DAY.test(text) && !Number.isNaN(Date.parse(text));
  if (!isDay && !(DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)))) {
    return operator === "neq" ? TRUE : FALSE;
  }
  const date = `DATETIME_PARSE(${stringLiteral(text)})`;
  const same = isDay ? `IS_SAME(${ref}, ${date}, "day")` : `IS_SAME(${ref}, ${date})`;
  // A day's midnight: before it is before the day, after it may still be on the day.
  const before = `IS_BEFORE(${ref}, ${date})`;
  const after = `IS_AFTER(${ref}, ${date})`;
  switch (operator) {
    case "eq":
      return same;
    case "neq":
      return `NOT(${same})`;
    case "gt":
      return isDay ? `AND(${after}, NOT(${same}))` : after;
    case "gte":
      return `OR(${same}, ${after})`;
    case "lt":
      return before;
    case "lte":
      return `OR(${same}, ${before})`;
  }
}

/**
 * A checkbox is never blank: Airtable leaves an unchecked one out of a record, but it is false.
 * The filter is decided for both states here, then written as which of them it keeps.
 */
function checkboxFormula(filter: Filter, field: FormulaField): string {
  const kept = [false, true].filter((state) => checkboxHolds(filter, state));
  if (kept.length !== 1) return kept.length === 2 ? TRUE : FALSE;
  const checked = `${fieldReference(field.name)} = TRUE()`;
  return kept[0] ? checked : `NOT(${checked})`;
}

/** Whether a checkbox in `state` passes `filter` (booleans order false, true; no text in them). */
function checkboxHolds(filter: Filter, state: boolean): boolean {
  if (filter.operator === "in") {
    const values = Array.isArray(filter.value) ? filter.value : [filter.value];
    return values.some((value) => asBoolean(value) === state);
  }
  const expected = asBoolean(filter.value);
  if (filter.operator === "neq") return expected !== state;
  if (expected === undefined || filter.operator === "contains") return false;
  const order = Number(state) - Number(expected);
  switch (filter.operator) {
    case "eq":
      return order === 0;
    case "gt":
      return order > 0;
    case "gte":
      return order >= 0;
    case "lt":
      return order < 0;
    case "lte":
      return order <= 0;
  }
}

/** A field as text, for substrings: a date as its day (YYYY-MM-DD, UTC), as ISO text starts. */
function asText(field: FormulaField): string {
  const ref = fieldReference(field.name);
  if (field.kind === "text") return ref;
  if (field.kind === "date") return `DATETIME_FORMAT(${ref}, "YYYY-MM-DD")`;
  return `${ref} & ""`;
}

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** A number, or a string that is exactly one; else undefined. */
function asNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && NUMERIC.test(value.trim())) return Number(value);
  return undefined;
}

function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}
