/**
 * How the PostgreSQL adapter turns column values into JSON-friendly ones, as a per-pool `types`
 * config (pg's global setTypeParser would change every other pg user in the process, such as the
 * service's own store). pg's defaults give BIGINT and NUMERIC as strings (to keep precision) and
 * DATE as a JavaScript Date at local midnight (a different day in some time zones), neither of
 * which a voice assistant can use:
 *
 * - BIGINT: a number when it is a safe integer, else the string (precision is not invented).
 * - NUMERIC: a number (prices and the like; beyond ~15 significant digits it is rounded); NaN and
 *   infinities stay strings.
 * - DATE: the ISO `YYYY-MM-DD` the server sends.
 * - TIMESTAMP (no zone): ISO `YYYY-MM-DDTHH:MM:SS[.ffffff]`, no zone, as stored.
 * - TIMESTAMPTZ: ISO in UTC, `…Z`.
 * - Arrays of those: the same, element by element.
 */
import pg from "pg";

const OID = {
  int8: 20,
  numeric: 1700,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  int8Array: 1016,
  numericArray: 1231,
  dateArray: 1182,
  timestampArray: 1115,
  timestamptzArray: 1185,
  textArray: 1009,
} as const;

type Parser = (text: string) => unknown;

const defaultParser = (oid: number): Parser => pg.types.getTypeParser(oid, "text") as Parser;

const bigint: Parser = (text) => {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
};

const numeric: Parser = (text) => {
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
};

const date: Parser = (text) => text;

const timestamp: Parser = (text) => text.replace(" ", "T");

const parseTimestamptz = defaultParser(OID.timestamptz);
const timestamptz: Parser = (text) => {
  const value = parseTimestamptz(text);
  return value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : text;
};

/** Arrays come as text arrays, then each element is converted (nested arrays too). */
const parseTextArray = defaultParser(OID.textArray);
const arrayOf =
  (element: Parser): Parser =>
  (text) => {
    const convert = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(convert)
        : typeof value === "string"
          ? element(value)
          : value;
    return convert(parseTextArray(text));
  };

const parsers = new Map<number, Parser>([
  [OID.int8, bigint],
  [OID.numeric, numeric],
  [OID.date, date],
  [OID.timestamp, timestamp],
  [OID.timestamptz, timestamptz],
  [OID.int8Array, arrayOf(bigint)],
  [OID.numericArray, arrayOf(numeric)],
  [OID.dateArray, arrayOf(date)],
  [OID.timestampArray, arrayOf(timestamp)],
  [OID.timestamptzArray, arrayOf(timestamptz)],
]);

export const resultTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format === "binary") return pg.types.getTypeParser(oid, "binary");
    return parsers.get(oid) ?? defaultParser(oid);
  }) as pg.CustomTypesConfig["getTypeParser"],
};
