/**
 * Builds the SQL of the SQL adapters from a checked AdapterQuery. SQL text is made only of
 * quoted identifiers (field names the collection lists, and the collection's `source`) and fixed
 * keywords; every value is a placeholder bound by the driver. Field names are quoted even though
 * checkSearch already allowed them, so that a bug upstream yields an unknown-column error, never
 * SQL of someone else's making.
 */
import { MAX_SEARCH_LIMIT, type AdapterQuery, type Filter } from "../search-types.ts";
import { LIKE_ESCAPE, type SqlDialect } from "./dialect.ts";
import { SqlAdapterError } from "./errors.ts";

/** What a placeholder may be bound to. */
export type SqlValue = string | number | boolean;

/** A statement and the values of its placeholders, in order. */
export interface SqlStatement {
  sql: string;
  params: SqlValue[];
}

export interface SearchStatement extends SqlStatement {
  /**
   * The column holding `COUNT(*) OVER ()`, the number of matches before LIMIT; not a field of the
   * items. Absent when the total needs a COUNT statement of its own (see countStatement).
   */
  totalColumn?: string;
}

/** One part of a source: what both databases accept unquoted, and within their length limits. */
const SOURCE_PART = /^[A-Za-z0-9_$]{1,63}$/;

/**
 * The parts of a collection's `source`, `table` or `schema.table`, each to be quoted on its own; a
 * bare table is qualified with `defaultSchema` when there is one. Anything else is refused rather
 * than guessed at: a source comes from a site config, but it still becomes SQL.
 */
export function parseSource(source: string, defaultSchema?: string): string[] {
  const parts = source.split(".");
  if (parts.length > 2 || !parts.every((part) => SOURCE_PART.test(part))) {
    throw SqlAdapterError.refused(
      `source ${JSON.stringify(source)} is not a table or view name: use "table" or ` +
        `"schema.table", each part of letters, digits, _ and $`,
    );
  }
  if (parts.length === 1 && defaultSchema !== undefined) {
    if (!SOURCE_PART.test(defaultSchema)) {
      throw SqlAdapterError.refused(`schema ${JSON.stringify(defaultSchema)} is not a schema name`);
    }
    return [defaultSchema, source];
  }
  return parts;
}

/** The quoted, possibly schema-qualified name of a relation. */
export const relationSql = (dialect: SqlDialect, relation: readonly string[]): string =>
  relation.map((part) => dialect.quoteIdentifier(part)).join(".");

/** `%value%` with the LIKE wildcards and the escape character itself taken literally. */
export function containsPattern(value: string): string {
  const escaped = value.replace(/[%_!]/g, (c) => LIKE_ESCAPE + c);
  return `%${escaped}%`;
}

/** Collects bound values and hands out their placeholders. */
class Bindings {
  readonly values: SqlValue[] = [];
  readonly #dialect: SqlDialect;

  constructor(dialect: SqlDialect) {
    this.#dialect = dialect;
  }

  bind(value: SqlValue): string {
    this.values.push(value);
    return this.#dialect.placeholder(this.values.length);
  }
}

const COMPARISONS: Record<string, string> = {
  eq: "=",
  neq: "<>",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
};

function scalar(value: unknown, field: string): SqlValue {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  throw SqlAdapterError.refused(
    `the value of the filter on "${field}" must be a string, a finite number or a boolean`,
  );
}

function condition(dialect: SqlDialect, filter: Filter, bindings: Bindings): string {
  const column = dialect.quoteIdentifier(filter.field);
  const { operator, value } = filter;
  const comparison = COMPARISONS[operator];
  if (comparison !== undefined) {
    return `${column} ${comparison} ${bindings.bind(scalar(value, filter.field))}`;
  }
  if (operator === "contains") {
    const pattern = containsPattern(String(scalar(value, filter.field)));
    return dialect.containsIgnoringCase(column, bindings.bind(pattern));
  }
  if (operator === "in") {
    if (!Array.isArray(value)) {
      throw SqlAdapterError.refused(
        `the value of the "in" filter on "${filter.field}" must be a list`,
      );
    }
    if (value.length === 0) return dialect.never;
    const list = value.map((item) => bindings.bind(scalar(item, filter.field)));
    return `${column} IN (${list.join(", ")})`;
  }
  throw SqlAdapterError.refused(`operator ${JSON.stringify(operator)} is not supported`);
}

/** The WHERE clause (with its keyword, or empty) of a query's text and filters. */
function whereSql(dialect: SqlDialect, query: AdapterQuery, bindings: Bindings): string {
  const conditions: string[] = [];
  if (query.text !== undefined && query.text !== "") {
    const pattern = containsPattern(query.text);
    const any = query.searchFields.map((field) =>
      dialect.containsIgnoringCase(dialect.quoteIdentifier(field), bindings.bind(pattern)),
    );
    conditions.push(any.length === 0 ? dialect.never : `(${any.join(" OR ")})`);
  }
  for (const filter of query.filters) conditions.push(condition(dialect, filter, bindings));
  return conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
}

/** An alias that is none of `taken`, for a column the builder adds. */
function freeAlias(base: string, taken: readonly string[]): string {
  let alias = base;
  while (taken.includes(alias)) alias = `_${alias}`;
  return alias;
}

function checkLimit(limit: unknown): number {
  if (typeof limit === "number" && Number.isInteger(limit) && limit >= 1) {
    if (limit <= MAX_SEARCH_LIMIT) return limit;
  }
  throw SqlAdapterError.refused(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
}

/** How a search statement is built for one server and relation. */
export interface SearchStatementOptions {
  /** Whether the server has window functions, for the total in the same statement. */
  windowCount: boolean;
  /**
   * The relation's primary key columns from the catalog, in key order; empty for a view or a
   * table without one. They order ties (see orderBySql).
   */
  primaryKey: readonly string[];
}

/**
 * The ORDER BY clause of a search (with its keyword): the requested sort, then a tie-break, so
 * that rows equal in the sorted field come in one order on every server and every call rather than
 * in whatever order the plan reads them (which differs between PostgreSQL and MariaDB, between a
 * LIMIT of 3 and of 10, and after an UPDATE moves a row). The tie-break is the primary key,
 * ascending: unique, NOT NULL, and usually indexed. A relation without one is ordered by every
 * returned field, ascending with NULLs last like the requested sort; rows alike in all of them
 * are alike to the caller too. A search without a sort is ordered by the tie-break alone.
 */
function orderBySql(
  dialect: SqlDialect,
  query: AdapterQuery,
  fields: readonly string[],
  primaryKey: readonly string[],
): string {
  const terms: string[] = [];
  const sorted = query.sort?.field;
  if (query.sort !== undefined) {
    const { field, direction } = query.sort;
    if (direction !== "asc" && direction !== "desc") {
      throw SqlAdapterError.refused(`sort direction must be asc or desc`);
    }
    terms.push(dialect.orderBy(dialect.quoteIdentifier(field), direction));
  }
  // Ordering again by the sorted field would break no tie: its tied rows are equal in it.
  if (primaryKey.length > 0) {
    for (const column of primaryKey.filter((name) => name !== sorted)) {
      terms.push(`${dialect.quoteIdentifier(column)} ASC`);
    }
  } else {
    for (const field of fields.filter((name) => name !== sorted)) {
      terms.push(dialect.tieBreak(dialect.quoteIdentifier(field)));
    }
  }
  return terms.length === 0 ? "" : ` ORDER BY ${terms.join(", ")}`;
}

/**
 * The SELECT of a search: `query.fields` only, the matches of its text and filters, sorted with
 * ties broken (see orderBySql), at most `limit` rows. With `windowCount` (PostgreSQL, MariaDB
 * 10.2+, MySQL 8) it also carries the total in `totalColumn`, so items and total come in one
 * round trip; a window function is computed before LIMIT, so it counts every match.
 */
export function searchStatement(
  dialect: SqlDialect,
  relation: readonly string[],
  query: AdapterQuery,
  options: SearchStatementOptions,
): SearchStatement {
  const fields = [...new Set(query.fields)];
  if (fields.length === 0) throw SqlAdapterError.refused("the query names no fields to return");
  const limit = checkLimit(query.limit);
  const bindings = new Bindings(dialect);
  const columns = fields.map((field) => dialect.quoteIdentifier(field));
  const totalColumn = options.windowCount ? freeAlias("sitevoice_total", fields) : undefined;
  if (totalColumn !== undefined) {
    columns.push(`COUNT(*) OVER () AS ${dialect.quoteIdentifier(totalColumn)}`);
  }
  let sql = `SELECT ${columns.join(", ")} FROM ${relationSql(dialect, relation)}`;
  sql += whereSql(dialect, query, bindings);
  sql += orderBySql(dialect, query, fields, options.primaryKey);
  // A checked whole number, so written as is: drivers differ on binding LIMIT.
  sql += ` LIMIT ${limit}`;
  return { sql, params: bindings.values, totalColumn };
}

/** The number of matches of a query, as column `total`: for servers without window functions. */
export function countStatement(
  dialect: SqlDialect,
  relation: readonly string[],
  query: AdapterQuery,
): SqlStatement {
  const bindings = new Bindings(dialect);
  const where = whereSql(dialect, query, bindings);
  const sql = `SELECT COUNT(*) AS ${dialect.quoteIdentifier("total")} FROM ${relationSql(dialect, relation)}${where}`;
  return { sql, params: bindings.values };
}

/** The number of rows of a relation, as column `total`. */
export const recordCountStatement = (dialect: SqlDialect, relation: readonly string[]) =>
  countStatement(dialect, relation, { searchFields: [], filters: [], limit: 1, fields: [] });

/** One row of `fields`, for introspection's sample values. */
export function sampleStatement(
  dialect: SqlDialect,
  relation: readonly string[],
  fields: readonly string[],
): SqlStatement {
  const columns = fields.map((field) => dialect.quoteIdentifier(field)).join(", ");
  return { sql: `SELECT ${columns} FROM ${relationSql(dialect, relation)} LIMIT 1`, params: [] };
}
