/**
 * The built-in MySQL / MariaDB adapter (`adapter.type: mysql`): searches a site's tables and
 * views read-only, with the service's deadline enforced on the server too. The SQL is shared
 * with the PostgreSQL adapter (`sitevoice/sql`); this folder holds what is MySQL's own.
 */
import { definePlugin } from "sitevoice";
import {
  SQL_COLLECTION_SCHEMA,
  SqlAdapter,
  SqlAdapterError,
  connectionDestination,
  messageOf,
  secretRedactor,
} from "sitevoice/sql";
import configSchema from "./config.schema.json" with { type: "json" };
import type { MysqlAdapterConfig } from "./generated/config.ts";
import { MysqlConnector } from "./mysql-connector.ts";

/** Small on purpose: one per site config, and a voice assistant asks one question at a time. */
export const MYSQL_MAX_CONNECTIONS = 5;

export default definePlugin<"adapter", MysqlAdapterConfig>({
  kind: "adapter",
  name: "adapter-mysql",
  apiVersion: 1,
  type: "mysql",
  configSchema,
  collectionSchema: SQL_COLLECTION_SCHEMA,
  destination: (config) => connectionDestination(config.connectionString),
  create(config, context) {
    try {
      return new SqlAdapter(
        new MysqlConnector(config, {
          logger: context.logger,
          // Equal to the service's deadline: the service's clock starts first, so it answers
          // 504 and kills; the server's limit is the backstop when a kill is lost.
          statementTimeoutMs: context.deadlineMs,
          maxConnections: MYSQL_MAX_CONNECTIONS,
          // Connections go where the outbound policy allows, as HTTP does through context.fetch.
          socket: () => context.socket(),
        }),
      );
    } catch (error) {
      // The host reports a create failure with its message; it must not carry the password.
      const message = secretRedactor(config.connectionString)(messageOf(error));
      throw new SqlAdapterError("refused", `MySQL adapter: ${message}`);
    }
  },
});
