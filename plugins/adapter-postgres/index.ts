/**
 * The built-in PostgreSQL adapter (`adapter.type: postgres`): searches a site's tables and views
 * read-only, with the service's deadline enforced on the server too. The SQL is shared with the
 * MySQL adapter (core/search/sql); this folder holds what is PostgreSQL's own.
 */
import { definePlugin } from "../../core/host/plugin.ts";
import { ADAPTER_TIMEOUT_MS } from "../../core/search/run-search.ts";
import { adapterConfigSchema } from "../../core/validation/adapter-config-schema.ts";
import { SqlAdapterError, messageOf, secretRedactor } from "../../core/search/sql/errors.ts";
import { SqlAdapter } from "../../core/search/sql/sql-adapter.ts";
import { connectionDestination } from "../../core/search/sql/connection-destination.ts";
import type { PostgresAdapterConfig } from "../../core/types/generated/site.ts";
import { PostgresConnector } from "./postgres-connector.ts";

/** Small on purpose: one per site config, and a voice assistant asks one question at a time. */
export const POSTGRES_MAX_CONNECTIONS = 5;

export default definePlugin<"adapter", PostgresAdapterConfig>({
  kind: "adapter",
  name: "adapter-postgres",
  apiVersion: 1,
  type: "postgres",
  configSchema: adapterConfigSchema("PostgresAdapterConfig"),
  destination: (config) => connectionDestination(config.connectionString),
  create(config, context) {
    try {
      return new SqlAdapter(
        new PostgresConnector(config, {
          logger: context.logger,
          // Equal to the service's deadline: the service's clock starts first, so it answers
          // 504 and cancels; the server's timeout is the backstop when a cancel is lost.
          statementTimeoutMs: ADAPTER_TIMEOUT_MS,
          maxConnections: POSTGRES_MAX_CONNECTIONS,
          applicationName: `sitevoice ${context.scope}`.slice(0, 63),
          // Connections go where the outbound policy allows, as HTTP does through context.fetch.
          socket: () => context.socket(),
        }),
      );
    } catch (error) {
      // The host reports a create failure with its message; it must not carry the password.
      const message = secretRedactor(config.connectionString)(messageOf(error));
      throw new SqlAdapterError("refused", `PostgreSQL adapter: ${message}`);
    }
  },
});
