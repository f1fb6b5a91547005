/**
 * PostgreSQL for the SQL adapter: one small pg pool per site config (PooledConnector runs the
 * rounds, stops a cancelled statement on the server and counts the pool; PostgresDriver says how
 * with pg), and the catalog read from pg_catalog.
 */
import type pg from "pg";
import { relationSql } from "sitevoice/sql";
import { postgresDialect } from "sitevoice/sql";
import { PooledConnector } from "sitevoice/sql";
import type { CatalogColumn } from "sitevoice/sql";
import type { FieldType } from "sitevoice";
import type { PostgresAdapterConfig } from "./generated/config.ts";
import { PostgresDriver, type PostgresDriverOptions } from "./postgres-driver.ts";

export interface PostgresConnectorOptions extends PostgresDriverOptions {
  /** Most connections of the search pool. */
  maxConnections: number;
}

export class PostgresConnector extends PooledConnector<pg.PoolClient> {
  readonly dialect = postgresDialect;
  readonly defaultSchema: string | undefined;

  constructor(config: PostgresAdapterConfig, options: PostgresConnectorOptions) {
    super(new PostgresDriver(config, options), {
      ...options,
      connectionString: config.connectionString,
    });
    this.defaultSchema = config.schema;
  }

  /**
   * From pg_catalog rather than information_schema: `to_regclass` resolves the name exactly as
   * the search's FROM does (search_path included), and typcategory types domains and enums.
   */
  async columns(relation: readonly string[], signal: AbortSignal): Promise<CatalogColumn[]> {
    const rows = await this.select(
      {
        sql:
          "SELECT a.attname AS name, COALESCE(b.typname, t.typname) AS type_name," +
          " COALESCE(b.typcategory, t.typcategory) AS category" +
          " FROM pg_catalog.pg_attribute a" +
          " JOIN pg_catalog.pg_type t ON t.oid = a.atttypid" +
          " LEFT JOIN pg_catalog.pg_type b ON b.oid = t.typbasetype AND t.typtype = 'd'" +
          " WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped" +
          " ORDER BY a.attnum",
        params: [relation.map((part) => this.dialect.quoteIdentifier(part)).join(".")],
      },
      signal,
    );
    return rows.map((row) => ({
      name: String(row.name),
      type: fieldType(String(row.type_name), String(row.category)),
    }));
  }

  /**
   * The key's columns in the order of pg_index.indkey (the key's order, not the table's), of the
   * relation `to_regclass` resolves as the search's FROM does; a view has no pg_index row.
   */
  async primaryKey(relation: readonly string[], signal: AbortSignal): Promise<string[]> {
    const rows = await this.select(
      {
        sql:
          "SELECT a.attname AS name FROM pg_catalog.pg_index i" +
          " CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)" +
          " JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum" +
          " WHERE i.indrelid = to_regclass($1) AND i.indisprimary ORDER BY k.position",
        params: [relationSql(this.dialect, relation)],
      },
      signal,
    );
    return rows.map((row) => String(row.name));
  }

  async countsInWindow(): Promise<boolean> {
    return true;
  }
}

/** A PostgreSQL type (the base type of a domain) as a SiteIntelligence field type. */
function fieldType(typeName: string, category: string): FieldType {
  if (typeName === "json" || typeName === "jsonb") return "object";
  if (typeName === "money") return "string"; // pg returns it formatted, "$1.00"
  if (typeName === "time" || typeName === "timetz") return "string"; // a time of day, no date
  switch (category) {
    case "A":
      return "array";
    case "B":
      return "boolean";
    case "D":
      return "date";
    case "N":
      return "number";
    case "C":
      return "object";
    case "S": // strings
    case "E": // enums
    case "T": // intervals
    case "I": // network addresses
      return "string";
    default:
      return typeName === "uuid" ? "string" : "unknown";
  }
}
