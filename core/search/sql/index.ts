/**
 * `sitevoice/sql`: what a SQL adapter plugin is built from, the built-in PostgreSQL and MySQL ones
 * as much as a third party's. A connector (PooledConnector with a driver's hooks) runs checked
 * statements read-only under the deadline; SqlAdapter turns searches into them.
 */
export { SqlAdapter } from "./sql-adapter.ts";
export type { CatalogColumn, PoolStats, SqlConnector, SqlRow } from "./sql-adapter.ts";
export { PooledConnector } from "./pooled-connector.ts";
export type { PooledConnectorOptions } from "./pooled-connector.ts";
export type { DriverFailureKind, DriverPool, PoolEvents, SqlDriver } from "./sql-driver.ts";
export { mysqlDialect, postgresDialect } from "./dialect.ts";
export type { SqlDialect } from "./dialect.ts";
export { relationSql } from "./build-search.ts";
export type { SqlStatement, SqlValue } from "./build-search.ts";
export { SqlAdapterError, codeOf, messageOf, secretRedactor } from "./errors.ts";
export { connectionDestination } from "./connection-destination.ts";
export { parseConnectionUrl } from "./connection-url.ts";
export type { ConnectionParts, ConnectionUrlRules } from "./connection-url.ts";
export { SQL_COLLECTION_SCHEMA } from "./collection-schema.ts";
