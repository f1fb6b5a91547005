/**
 * MySQL and MariaDB for the SQL adapter: one small mysql2 pool per site config (PooledConnector
 * runs the rounds, stops a cancelled statement on the server and counts the pool; MysqlDriver
 * says how with mysql2), and the catalog read from information_schema.
 */
import type mysql from "mysql2/promise";
import type { FieldType } from "sitevoice";
import { mysqlDialect } from "sitevoice/sql";
import { SqlAdapterError } from "sitevoice/sql";
import { PooledConnector } from "sitevoice/sql";
import type { CatalogColumn } from "sitevoice/sql";
import type { MysqlAdapterConfig } from "./generated/config.ts";
import { MysqlDriver, type MysqlDriverOptions, type ServerInfo } from "./mysql-driver.ts";

export interface MysqlConnectorOptions extends MysqlDriverOptions {
  /** Most connections of the search pool. */
  maxConnections: number;
}

export class MysqlConnector extends PooledConnector<mysql.PoolConnection> {
  readonly dialect = mysqlDialect;
  readonly #driver: MysqlDriver;

  constructor(config: MysqlAdapterConfig, options: MysqlConnectorOptions) {
    const driver = new MysqlDriver(config, options);
    super(driver, { ...options, connectionString: config.connectionString });
    this.#driver = driver;
  }

  async columns(relation: readonly string[], signal: AbortSignal): Promise<CatalogColumn[]> {
    const inRelation = (schemaColumn: string) => catalogFilter(relation, schemaColumn);
    const columns = inRelation("TABLE_SCHEMA");
    const rows = await this.select(
      {
        sql:
          "SELECT COLUMN_NAME AS name, DATA_TYPE AS data_type, COLUMN_TYPE AS column_type" +
          ` FROM information_schema.COLUMNS WHERE ${columns.where} ORDER BY ORDINAL_POSITION`,
        params: columns.params,
      },
      signal,
    );
    const json =
      (await this.#serverInfo(signal)).label === "MariaDB"
        ? await this.#mariadbJsonColumns(inRelation("CONSTRAINT_SCHEMA"), signal)
        : new Set<string>();
    return rows.map((row) => {
      const name = String(row.name);
      const type = json.has(name)
        ? "object"
        : fieldType(String(row.data_type), String(row.column_type));
      return { name, type };
    });
  }

  /**
   * The columns of the PRIMARY constraint in key order (ORDINAL_POSITION), of the relation in
   * the named database or else the connection's (DATABASE()), as the search's FROM resolves it; a
   * view has none.
   */
  async primaryKey(relation: readonly string[], signal: AbortSignal): Promise<string[]> {
    const { where, params } = catalogFilter(relation, "TABLE_SCHEMA");
    const rows = await this.select(
      {
        sql:
          "SELECT COLUMN_NAME AS name FROM information_schema.KEY_COLUMN_USAGE" +
          ` WHERE ${where} AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`,
        params,
      },
      signal,
    );
    return rows.map((row) => String(row.name));
  }

  async countsInWindow(signal: AbortSignal): Promise<boolean> {
    return (await this.#serverInfo(signal)).windowFunctions;
  }

  /** What the server is; the session set-up of the first connection finds out. */
  async #serverInfo(signal: AbortSignal): Promise<ServerInfo> {
    if (this.#driver.server === undefined) await this.setUpConnection(signal);
    const server = this.#driver.server;
    if (server === undefined) throw new Error("the MySQL session set-up did not run");
    try {
      return await server;
    } catch (error) {
      throw error instanceof SqlAdapterError ? error : this.connectFailure(error);
    }
  }

  /** MariaDB's JSON is LONGTEXT with a json_valid CHECK; those columns hold objects. */
  async #mariadbJsonColumns(
    relation: { where: string; params: string[] },
    signal: AbortSignal,
  ): Promise<Set<string>> {
    const rows = await this.select(
      {
        sql:
          "SELECT CHECK_CLAUSE AS clause FROM information_schema.CHECK_CONSTRAINTS" +
          ` WHERE ${relation.where}`,
        params: relation.params,
      },
      signal,
    );
    const names = rows
      .map((row) => /^json_valid\(`((?:[^`]|``)+)`\)$/i.exec(String(row.clause))?.[1])
      .filter((name) => name !== undefined)
      .map((name) => name.replaceAll("``", "`"));
    return new Set(names);
  }
}

/**
 * The condition on an information_schema table selecting `relation`'s rows: its `schemaColumn`
 * is the named database, or the connection's (DATABASE()) for a bare table name.
 */
function catalogFilter(
  relation: readonly string[],
  schemaColumn: string,
): { where: string; params: string[] } {
  const [schema, table] = relation.length === 2 ? relation : [undefined, relation[0]];
  return {
    where: `${schemaColumn} = ${schema === undefined ? "DATABASE()" : "?"} AND TABLE_NAME = ?`,
    params: schema === undefined ? [String(table)] : [schema, String(table)],
  };
}

/** A MySQL column type as a SiteIntelligence field type. */
function fieldType(dataType: string, columnType: string): FieldType {
  const type = dataType.toLowerCase();
  if (type === "tinyint" && columnType.toLowerCase().startsWith("tinyint(1)")) return "boolean";
  if (
    [
      "tinyint",
      "smallint",
      "mediumint",
      "int",
      "integer",
      "bigint",
      "decimal",
      "numeric",
      "float",
      "double",
      "real",
      "year",
    ].includes(type)
  ) {
    return "number";
  }
  if (type === "date" || type === "datetime" || type === "timestamp") return "date";
  if (type === "json") return "object";
  if (
    [
      "char",
      "varchar",
      "tinytext",
      "text",
      "mediumtext",
      "longtext",
      "enum",
      "set",
      "time",
      "uuid",
      "inet4",
      "inet6",
    ].includes(type)
  ) {
    return "string";
  }
  return "unknown";
}
