/**
 * The few places where the SQL of PostgreSQL and of MySQL/MariaDB differ, so that one query
 * builder serves both adapters: identifier quoting, placeholders, case-insensitive substring
 * matching and NULL ordering.
 */

/**
 * The LIKE escape character. Not the usual backslash: inside a string literal a backslash is
 * itself an escape in MySQL (unless NO_BACKSLASH_ESCAPES) and in PostgreSQL with
 * standard_conforming_strings off, so `'\'` means different things on different servers; `!` means
 * the same everywhere.
 */
export const LIKE_ESCAPE = "!";

export interface SqlDialect {
  readonly name: "postgres" | "mysql";
  /** One identifier, quoted, with any quote character inside doubled so it cannot end early. */
  quoteIdentifier(name: string): string;
  /** The placeholder of the `index`-th bound value, counting from 1. */
  placeholder(index: number): string;
  /**
   * `column` (any type) holds `pattern`, a bound LIKE pattern escaped with LIKE_ESCAPE, ignoring
   * case.
   */
  containsIgnoringCase(column: string, pattern: string): string;
  /** One ORDER BY term; NULLs come last both ways, so "cheapest first" never starts with unknowns. */
  orderBy(column: string, direction: "asc" | "desc"): string;
  /**
   * An ORDER BY term that only breaks ties (a relation without a key is ordered by its returned
   * fields): any fixed order will do, but it must work for every column type a relation may
   * return.
   */
  tieBreak(column: string): string;
  /** A condition that never holds. */
  readonly never: string;
}

const quoteWith = (quote: string) => (name: string) =>
  quote + name.replaceAll(quote, quote + quote) + quote;

export const postgresDialect: SqlDialect = {
  name: "postgres",
  quoteIdentifier: quoteWith('"'),
  placeholder: (index) => `$${index}`,
  // The cast lets `contains` work on numbers and dates too; on a text column it is a no-op.
  containsIgnoringCase: (column, pattern) =>
    `CAST(${column} AS text) ILIKE ${pattern} ESCAPE '${LIKE_ESCAPE}'`,
  orderBy: (column, direction) => `${column} ${direction === "desc" ? "DESC" : "ASC"} NULLS LAST`,
  // json, xml and point have no ordering operator; their text has.
  tieBreak: (column) => `CAST(${column} AS text) ASC NULLS LAST`,
  never: "FALSE",
};

export const mysqlDialect: SqlDialect = {
  name: "mysql",
  quoteIdentifier: quoteWith("`"),
  placeholder: () => "?",
  // LOWER on both sides: a column with a binary or _bin collation compares case-sensitively.
  containsIgnoringCase: (column, pattern) =>
    `LOWER(${column}) LIKE LOWER(${pattern}) ESCAPE '${LIKE_ESCAPE}'`,
  // MySQL has no NULLS LAST; `x IS NULL` sorts 0 (values) before 1 (NULLs).
  orderBy: (column, direction) =>
    `(${column} IS NULL), ${column} ${direction === "desc" ? "DESC" : "ASC"}`,
  // Every MySQL type orders, JSON included.
  tieBreak: (column) => `(${column} IS NULL), ${column} ASC`,
  never: "FALSE",
};
