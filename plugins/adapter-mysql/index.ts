/**
 * The built-in MySQL / MariaDB adapter (`adapter.type: mysql`): searches a site's tables and
 * views read-only, with the service's deadline enforced on the server too. The SQL is shared
 * with the PostgreSQL adapter (core/search/sql); this folder holds what is MySQL's own.
 */
import { definePlugin } from "../../core/host/plugin.ts";
import { ADAPTER_TIMEOUT_MS } from "../../core/search/run-search.ts";
import { adapterConfigSchema } from "../../core/validation/adapter-config-schema.ts";
import { SqlAdapterError, messageOf, secretRedactor } from "../../core/search/sql/errors.ts";
import { SqlAdapter } from "../../core/search/sql/sql-adapter.ts";
import { connectionDestination } from "../../core/search/sql/connection-destination.ts";
import type { MysqlAdapterConfig } from "../../core/types/generated/site.ts";
import { MysqlConnector } from "./mysql-connector.ts";

/** Small on purpose: one per site config, and a voice assistant asks one question at a time. */
export const MYSQL_MAX_CONNECTIONS = 5;

export default definePlugin<"adapter", MysqlAdapterConfig>({
  kind: "adapter",
  name: "adapter-mysql",
  apiVersion: 1,
  type: "mysql",
  configSchema: adapterConfigSchema("MysqlAdapterConfig"),
  destination: (config) => connectionDestination(config.connectionString),
  create(config, context) {
    try {
      return new SqlAdapter(
        new MysqlConnector(config, {
          logger: context.logger,
          // Equal to the service's deadline: the service's clock starts first, so it answers
          // 504 and kills; the server's limit is the backstop when a kill is lost.
          statementTimeoutMs: ADAPTER_TIMEOUT_MS,
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
