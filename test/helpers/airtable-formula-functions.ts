/**
 * What Airtable's formulas compute, for the stand-in's `filterByFormula` (the parser is
 * airtable-formula.ts): values, operators and the functions a search would reasonably use, with
 * the semantics Airtable's formula field reference gives them.
 *
 * - TRUE() and FALSE() are 1 and 0 ("represented numerically"); a checkbox is true or false.
 * - A blank (an empty field, BLANK()) is "" next to text and 0 next to a number, so `{Price} < 5`
 *   holds for an empty price and `{Name} != "x"` for an empty name: a search must ask for a value.
 * - `=` on text is exact (case-sensitive). `<`, `>` on two texts compare them by code point (the
 *   reference shows only numbers; no adapter should rely on it).
 * - FIND(needle, text, [start]) is the 1-based position, 0 when absent; SEARCH the same, blank
 *   when absent. Both are case-sensitive. LOWER, UPPER, LEN work on the value's text.
 * - Dates: DATETIME_PARSE of ISO text; IS_SAME(a, b, [unit]) compares up to a unit (millisecond
 *   to year, in UTC), IS_BEFORE / IS_AFTER to the millisecond; DATETIME_FORMAT(date, [format])
 *   with YYYY MM DD HH mm ss SSS (ISO 8601 without a format).
 * A formula that fails on a record (a date function given no date, a division by zero) is
 * Airtable's #ERROR: the record is left out, as for any falsy result.
 */

/** A parsed formula (airtable-formula.ts parses; this module evaluates). */
export type FormulaNode =
  | { type: "literal"; value: string | number }
  | { type: "field"; name: string }
  | { type: "call"; name: string; args: FormulaNode[] }
  | { type: "unary"; operand: FormulaNode }
  | { type: "binary"; operator: string; left: FormulaNode; right: FormulaNode };

/** A date or date-time; `day` for a date field (its text is then YYYY-MM-DD). */
export class DateValue {
  constructor(
    readonly time: number,
    readonly day: boolean,
  ) {}
  get text(): string {
    const iso = new Date(this.time).toISOString();
    return this.day ? iso.slice(0, 10) : iso;
  }
}

export type FormulaValue = null | string | number | boolean | DateValue | FormulaValue[];

/** #ERROR on one record. */
export class FormulaEvalError extends Error {}

interface FormulaFunction {
  arity: [number, number];
  run(args: FormulaValue[]): FormulaValue;
}

export function isTruthy(value: FormulaValue): boolean {
  if (value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "number") return value !== 0 && !Number.isNaN(value);
  return value !== false && value !== "";
}

export function toText(value: FormulaValue): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "1" : "0";
  if (value instanceof DateValue) return value.text;
  if (Array.isArray(value)) return value.map(toText).join(", ");
  return String(value);
}

function toNumber(value: FormulaValue): number {
  if (value === null) return 0;
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^\s*-?(\d+(\.\d*)?|\.\d+)\s*$/.test(value))
    return Number(value);
  return Number.NaN;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function toDate(value: FormulaValue): DateValue | undefined {
  if (value instanceof DateValue) return value;
  if (typeof value !== "string") return undefined;
  const time = Date.parse(DAY.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(time) ? undefined : new DateValue(time, DAY.test(value));
}

const requireDate = (value: FormulaValue): DateValue => {
  const date = toDate(value);
  if (date === undefined) throw new FormulaEvalError("not a date");
  return date;
};

/** The two sides as two numbers or two texts, or undefined when they do not compare. */
function comparable(
  a: FormulaValue,
  b: FormulaValue,
): [number, number] | [string, string] | undefined {
  if (Array.isArray(a)) a = toText(a);
  if (Array.isArray(b)) b = toText(b);
  if (a === null && b === null) return ["", ""];
  if (a === null) a = typeof b === "string" ? "" : b instanceof DateValue ? a : 0;
  if (b === null) b = typeof a === "string" ? "" : a instanceof DateValue ? b : 0;
  if (a === null || b === null) return undefined;
  if (a instanceof DateValue || b instanceof DateValue) {
    const [x, y] = [toDate(a), toDate(b)];
    return x === undefined || y === undefined ? undefined : [x.time, y.time];
  }
  if (typeof a === "string" && typeof b === "string") return [a, b];
  const [x, y] = [toNumber(a), toNumber(b)];
  return Number.isNaN(x) || Number.isNaN(y) ? undefined : [x, y];
}

function compare(operator: string, a: FormulaValue, b: FormulaValue): boolean {
  const pair = comparable(a, b);
  if (pair === undefined) return operator === "!=";
  const [x, y] = pair;
  const order = x < y ? -1 : x > y ? 1 : 0;
  const holds: Record<string, boolean> = {
    "=": order === 0,
    "!=": order !== 0,
    "<": order < 0,
    ">": order > 0,
    "<=": order <= 0,
    ">=": order >= 0,
  };
  return holds[operator] as boolean;
}

function arithmetic(operator: string, a: FormulaValue, b: FormulaValue): number {
  const [x, y] = [toNumber(a), toNumber(b)];
  if (operator === "/" && y === 0) throw new FormulaEvalError("division by zero");
  const result = { "+": x + y, "-": x - y, "*": x * y, "/": x / y }[operator] as number;
  if (Number.isNaN(result)) throw new FormulaEvalError("not a number");
  return result;
}

/** Characters of an ISO date-time kept to compare up to each unit. */
const UNIT_LENGTH: Record<string, number> = {
  year: 4,
  month: 7,
  day: 10,
  hour: 13,
  minute: 16,
  second: 19,
  millisecond: 24,
};

function sameUpTo(a: DateValue, b: DateValue, unit: FormulaValue): boolean {
  const name = toText(unit).toLowerCase().replace(/s$/, "");
  const length = UNIT_LENGTH[name];
  if (length === undefined) throw new FormulaEvalError(`unknown unit ${name}`);
  const iso = (date: DateValue) => new Date(date.time).toISOString().slice(0, length);
  return iso(a) === iso(b);
}

function formatDate(date: DateValue, format: FormulaValue): string {
  const iso = new Date(date.time).toISOString();
  if (format === undefined || format === null) return iso;
  const parts: Record<string, string> = {
    YYYY: iso.slice(0, 4),
    MM: iso.slice(5, 7),
    DD: iso.slice(8, 10),
    HH: iso.slice(11, 13),
    mm: iso.slice(14, 16),
    ss: iso.slice(17, 19),
    SSS: iso.slice(20, 23),
  };
  return toText(format).replace(/YYYY|MM|DD|HH|mm|ss|SSS/g, (token) => parts[token] as string);
}

function find(args: FormulaValue[]): number {
  const [needle, text, start] = [toText(args[0]!), toText(args[1]!), toNumber(args[2] ?? 0)];
  return text.indexOf(needle, Math.max(0, start - 1)) + 1;
}

/** Airtable's functions that the stand-in knows, by upper-case name. */
export const FUNCTIONS: Record<string, FormulaFunction> = {
  AND: { arity: [1, Infinity], run: (args) => args.every(isTruthy) },
  OR: { arity: [1, Infinity], run: (args) => args.some(isTruthy) },
  NOT: { arity: [1, 1], run: ([value]) => !isTruthy(value!) },
  IF: { arity: [2, 3], run: ([test, yes, no]) => (isTruthy(test!) ? yes! : (no ?? null)) },
  TRUE: { arity: [0, 0], run: () => true },
  FALSE: { arity: [0, 0], run: () => false },
  BLANK: { arity: [0, 0], run: () => null },
  LOWER: { arity: [1, 1], run: ([value]) => toText(value!).toLowerCase() },
  UPPER: { arity: [1, 1], run: ([value]) => toText(value!).toUpperCase() },
  LEN: { arity: [1, 1], run: ([value]) => toText(value!).length },
  FIND: { arity: [2, 3], run: find },
  SEARCH: { arity: [2, 3], run: (args) => find(args) || null },
  DATETIME_PARSE: { arity: [1, 1], run: ([text]) => requireDate(toText(text!)) },
  DATETIME_FORMAT: {
    arity: [1, 2],
    run: ([date, format]) => formatDate(requireDate(date!), format ?? null),
  },
  IS_SAME: {
    arity: [2, 3],
    run: ([a, b, unit]) =>
      unit === undefined
        ? requireDate(a!).time === requireDate(b!).time
        : sameUpTo(requireDate(a!), requireDate(b!), unit),
  },
  IS_BEFORE: { arity: [2, 2], run: ([a, b]) => requireDate(a!).time < requireDate(b!).time },
  IS_AFTER: { arity: [2, 2], run: ([a, b]) => requireDate(a!).time > requireDate(b!).time },
};

/** The value of `node` for one record, whose fields `field` reads; throws FormulaEvalError. */
export function evaluate(node: FormulaNode, field: (name: string) => FormulaValue): FormulaValue {
  const run = (child: FormulaNode) => evaluate(child, field);
  switch (node.type) {
    case "literal":
      return node.value;
    case "field":
      return field(node.name);
    case "unary":
      return -toNumber(run(node.operand));
    case "call":
      return FUNCTIONS[node.name]!.run(node.args.map(run));
    case "binary": {
      const [left, right] = [run(node.left), run(node.right)];
      if (node.operator === "&") return toText(left) + toText(right);
      if ("+-*/".includes(node.operator)) return arithmetic(node.operator, left, right);
      return compare(node.operator, left, right);
    }
  }
}
