/**
 * The built-in PostgreSQL adapter (`adapter.type: postgres`): searches a site's tables and views
 * read-only, with the service's deadline enforced on the server too. The SQL is shared with the
 * MySQL adapter (`sitevoice/sql`); this folder holds what is PostgreSQL's own.
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
import type { PostgresAdapterConfig } from "./generated/config.ts";
import { PostgresConnector } from "./postgres-connector.ts";

/** Small on purpose: one per site config, and a voice assistant asks one question at a time. */
export const POSTGRES_MAX_CONNECTIONS = 5;

export default definePlugin<"adapter", PostgresAdapterConfig>({
  kind: "adapter",
  name: "adapter-postgres",
  apiVersion: 1,
  type: "postgres",
  configSchema,
  collectionSchema: SQL_COLLECTION_SCHEMA,
  destination: (config) => connectionDestination(config.connectionString),
  create(config, context) {
    try {
      return new SqlAdapter(
        new PostgresConnector(config, {
          logger: context.logger,
          // Equal to the service's deadline: the service's clock starts first, so it answers
          // 504 and cancels; the server's timeout is the backstop when a cancel is lost.
          statementTimeoutMs: context.deadlineMs,
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
