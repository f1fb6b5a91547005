/**
 * What PooledConnector needs of pg: small pg pools whose connections use the outbound policy's
 * socket, every statement in `BEGIN READ ONLY` with `SET LOCAL statement_timeout` (so the server
 * itself refuses writes and stops a runaway query even if the service never gets to cancel it),
 * `pg_terminate_backend(pid)` to stop one, and what pg's SQLSTATEs mean.
 *
 * A connection is discarded by releasing it with an error, so pg-pool drops and replaces it.
 */
import type { Socket } from "node:net";
import type { Logger } from "sitevoice";
import pg from "pg";
import type { SqlStatement, SqlValue } from "sitevoice/sql";
import { codeOf, messageOf, parseConnectionUrl, secretRedactor } from "sitevoice/sql";
import type { SqlRow } from "sitevoice/sql";
import type { DriverFailureKind, DriverPool, PoolEvents, SqlDriver } from "sitevoice/sql";
import type { PostgresAdapterConfig } from "./generated/config.ts";
import { resultTypes } from "./result-types.ts";

export interface PostgresDriverOptions {
  logger: Logger;
  /** The server-side statement_timeout, in milliseconds. */
  statementTimeoutMs: number;
  /** Shown in pg_stat_activity, so a DBA can tell whose connections these are. */
  applicationName: string;
  /** A socket under the outbound policy (PluginContext.socket); every connection uses one. */
  socket: () => Socket;
}

/** SQLSTATE of "canceling statement due to statement timeout" (and of a user cancel). */
const QUERY_CANCELED = "57014";

/** SQLSTATEs of an undefined table and an undefined column. */
const UNDEFINED = new Set(["42P01", "42703"]);

export class PostgresDriver implements SqlDriver<pg.PoolClient> {
  readonly label = "PostgreSQL";
  readonly timeLimitName = "statement_timeout";
  readonly beginSql: string;
  readonly rollbackSql = "ROLLBACK";
  readonly #base: pg.PoolConfig;
  readonly #logger: Logger;
  readonly #redact: (text: string) => string;

  constructor(config: PostgresAdapterConfig, options: PostgresDriverOptions) {
    this.#logger = options.logger;
    this.#redact = secretRedactor(config.connectionString);
    this.beginSql = `BEGIN READ ONLY; SET LOCAL statement_timeout = ${options.statementTimeoutMs}`;
    // Parsed here, not by pg, which would take every URL parameter as an option: none is honoured.
    const { parameters: _none, ...parts } = parseConnectionUrl(config.connectionString, {
      schemes: ["postgres:", "postgresql:"],
      defaultPort: 5432,
      parameters: [],
    });
    this.#base = {
      ...parts,
      // Without it pg connects in plain text.
      ...(config.ssl === undefined ? {} : { ssl: config.ssl }),
      application_name: options.applicationName,
      // Waiting for a connection (or for a free one) never outlasts the search deadline.
      connectionTimeoutMillis: options.statementTimeoutMs,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      allowExitOnIdle: true,
      types: resultTypes,
      // pg calls connect(port, host) on it, or connect(path) for a `/…` host, which the policy
      // refuses. TLS goes on top of it with the host name, so the certificate is checked
      // against the name.
      stream: () => options.socket(),
    };
  }

  openPool(max: number, events?: PoolEvents): DriverPool<pg.PoolClient> {
    const pool = new pg.Pool({ ...this.#base, max });
    // An idle client that fails (server restart, network) is dropped by the pool; without a
    // listener the error would crash the process.
    pool.on("error", (error) =>
      this.#logger.warn(
        { error: this.#redact(messageOf(error)) },
        "idle PostgreSQL connection lost",
      ),
    );
    pool.on("connect", (client) => {
      // pg-pool removes its own listener while a client is checked out; a connection error
      // between statements must not crash the process either (the next statement reports it).
      client.on("error", () => undefined);
      events?.opened(client);
    });
    if (events !== undefined) pool.on("remove", (client) => events.removed(client));
    return {
      acquire: () => pool.connect(),
      query: (sql: string, params: SqlValue[]) => pool.query(sql, params),
      end: () => pool.end(),
    };
  }

  identity(client: pg.PoolClient): object {
    return client;
  }

  query(client: pg.PoolClient, sql: string): Promise<unknown> {
    return client.query(sql);
  }

  async execute(client: pg.PoolClient, statement: SqlStatement): Promise<SqlRow[]> {
    return (await client.query<SqlRow>({ text: statement.sql, values: statement.params })).rows;
  }

  release(client: pg.PoolClient): void {
    client.release();
  }

  discard(client: pg.PoolClient, reason: Error): void {
    client.release(reason);
  }

  /** The backend's pid from the connection's BackendKeyData (pg keeps it, its types do not say). */
  backendId(client: pg.PoolClient): number | undefined {
    const pid = (client as unknown as { processID?: unknown }).processID;
    return typeof pid === "number" && Number.isInteger(pid) ? pid : undefined;
  }

  killStatement(pid: number): SqlStatement {
    return { sql: "SELECT pg_terminate_backend($1)", params: [pid] };
  }

  failureKind(error: unknown): DriverFailureKind {
    const code = codeOf(error);
    if (code === QUERY_CANCELED && /statement timeout/i.test(messageOf(error))) return "timeout";
    return code !== undefined && UNDEFINED.has(code) ? "missing" : "other";
  }
}
