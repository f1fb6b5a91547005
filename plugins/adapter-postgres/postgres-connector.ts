/**
 * PostgreSQL for the SQL adapter: one small pg pool per site config, and every statement in
 * `BEGIN READ ONLY` with `SET LOCAL statement_timeout`, so the server itself refuses writes and
 * stops a runaway query even if the service never gets to cancel it.
 *
 * On abort the statement is really stopped: the client's backend is ended with
 * `pg_terminate_backend(pid)`, sent from a separate one-connection control pool (the search pool
 * may be full of the very queries to stop), and the client is released with an error so pg-pool
 * drops and replaces it. Closing the socket alone would leave the backend running until its query
 * ends (PostgreSQL does not notice a gone client mid-query). Terminating rather than
 * `pg_cancel_backend` because the connection is thrown away anyway, and a cancel that arrives
 * while the statement is still on its way is a no-op, after which the statement runs to
 * statement_timeout; a terminated backend runs nothing more.
 */
import { InFlight } from "../../core/util/in-flight.ts";
import { readOnlyRound } from "../../core/search/sql/read-only-round.ts";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import pg from "pg";
import type { PostgresAdapterConfig } from "../../core/types/generated/site.ts";
import { relationSql, type SqlStatement } from "../../core/search/sql/build-search.ts";
import { postgresDialect } from "../../core/search/sql/dialect.ts";
import {
  MISSING_RELATION,
  QUERY_FAILED,
  SqlAdapterError,
  codeOf,
  connectFailure,
  messageOf,
  secretRedactor,
  untilAborted,
} from "../../core/search/sql/errors.ts";
import type {
  CatalogColumn,
  PoolStats,
  SqlConnector,
  SqlRow,
} from "../../core/search/sql/sql-adapter.ts";
import type { FieldType } from "../../core/search/search-types.ts";
import { resultTypes } from "./result-types.ts";

export interface PostgresConnectorOptions {
  logger: Logger;
  /** The server-side statement_timeout, in milliseconds. */
  statementTimeoutMs: number;
  /** Most connections of the search pool. */
  maxConnections: number;
  /** Shown in pg_stat_activity, so a DBA can tell whose connections these are. */
  applicationName: string;
  /** A socket under the outbound policy (PluginContext.socket); every connection uses one. */
  socket: () => Socket;
}

/** SQLSTATE of "canceling statement due to statement timeout" (and of a user cancel). */
const QUERY_CANCELED = "57014";

/** SQLSTATEs of an undefined table and an undefined column. */
const UNDEFINED = new Set(["42P01", "42703"]);

export class PostgresConnector implements SqlConnector {
  readonly dialect = postgresDialect;
  readonly defaultSchema: string | undefined;
  readonly #base: pg.PoolConfig;
  readonly #pool: pg.Pool;
  /** Opened on the first abort; holds at most one connection. */
  #control: pg.Pool | undefined;
  /** Statements in flight, and terminations under way: close() waits for both. */
  readonly #active = new InFlight();
  readonly #terminations = new InFlight();
  readonly #redact: (text: string) => string;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #closed = false;

  constructor(config: PostgresAdapterConfig, options: PostgresConnectorOptions) {
    this.defaultSchema = config.schema;
    this.#redact = secretRedactor(config.connectionString);
    this.#logger = options.logger;
    this.#timeoutMs = options.statementTimeoutMs;
    this.#base = {
      connectionString: config.connectionString,
      // pg lets sslmode in the URL win over this; without either it connects in plain text.
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
    this.#pool = this.#newPool(options.maxConnections);
  }

  select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]> {
    return this.#active.track(this.#select(statement, signal));
  }

  async #select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]> {
    const client = await this.#acquire(signal);
    const round = readOnlyRound({
      begin: () =>
        client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${this.#timeoutMs}`),
      run: async () =>
        (await client.query<SqlRow>({ text: statement.sql, values: statement.params })).rows,
      rollback: () => client.query("ROLLBACK"),
    });
    try {
      const rows = await untilAborted(round.done, signal);
      client.release();
      return rows;
    } catch (error) {
      if (signal.aborted) {
        this.#terminate(backendPid(client));
        client.release(new Error("the query was cancelled"));
        throw SqlAdapterError.cancelled(signal);
      }
      client.release(round.reusable() ? undefined : toError(error));
      throw this.#failure(error);
    }
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

  stats(): PoolStats {
    const pool = this.#pool;
    return {
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      closed: pool.ending || pool.ended,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // The adapter aborted the statements in flight, so they settle at once, sending their
    // terminations on the control pool, which is ended only after those are through.
    await this.#active.settled();
    await this.#terminations.settled();
    await Promise.allSettled([this.#pool.end(), this.#control?.end()]);
  }

  #newPool(max: number): pg.Pool {
    const pool = new pg.Pool({ ...this.#base, max });
    // An idle client that fails (server restart, network) is dropped by the pool; without a
    // listener the error would crash the process.
    pool.on("error", (error) =>
      this.#logger.warn(
        { error: this.#redact(messageOf(error)) },
        "idle PostgreSQL connection lost",
      ),
    );
    // pg-pool removes its own listener while a client is checked out; a connection error
    // between statements must not crash the process either (the next statement reports it).
    pool.on("connect", (client) => client.on("error", () => undefined));
    return pool;
  }

  async #acquire(signal: AbortSignal): Promise<pg.PoolClient> {
    if (this.#closed) throw SqlAdapterError.closed();
    const pending = this.#pool.connect();
    try {
      return await untilAborted(pending, signal);
    } catch (error) {
      // A client that arrives after the caller gave up goes straight back.
      if (signal.aborted)
        pending.then(
          (client) => client.release(),
          () => undefined,
        );
      if (error instanceof SqlAdapterError) throw error;
      throw this.#connectFailure(error);
    }
  }

  /** Ends backend `pid` on the server; if that fails, statement_timeout still stops its query. */
  #terminate(pid: number | undefined): void {
    if (pid === undefined) return;
    this.#control ??= this.#newPool(1);
    const termination = this.#control.query("SELECT pg_terminate_backend($1)", [pid]).then(
      () => undefined,
      (error: unknown) =>
        this.#logger.warn(
          { pid, error: this.#redact(messageOf(error)) },
          "could not stop a PostgreSQL query; statement_timeout will",
        ),
    );
    this.#terminations.track(termination);
  }

  /** A connection that could not be made: the reason is logged, the caller reads connectFailure's. */
  #connectFailure(error: unknown): SqlAdapterError {
    this.#logger.warn(
      { code: codeOf(error), error: this.#redact(messageOf(error)) },
      "could not connect to PostgreSQL",
    );
    return connectFailure(error);
  }

  /** A statement that failed: the reason is logged, the caller reads one of a few fixed messages. */
  #failure(error: unknown): SqlAdapterError {
    const code = codeOf(error);
    const message = this.#redact(messageOf(error));
    if (code === QUERY_CANCELED && /statement timeout/i.test(message)) {
      return new SqlAdapterError(
        "backend",
        `PostgreSQL stopped the query after ${this.#timeoutMs / 1000} s (statement_timeout)`,
        code,
      );
    }
    this.#logger.warn({ code, error: message }, "PostgreSQL query failed");
    if (code !== undefined && UNDEFINED.has(code)) {
      return new SqlAdapterError("backend", MISSING_RELATION, code);
    }
    return new SqlAdapterError("backend", QUERY_FAILED, code);
  }
}

/** The backend's pid from the connection's BackendKeyData (pg keeps it, its types do not say). */
function backendPid(client: pg.PoolClient): number | undefined {
  const pid = (client as unknown as { processID?: unknown }).processID;
  return typeof pid === "number" && Number.isInteger(pid) ? pid : undefined;
}

const toError = (error: unknown): Error =>
  error instanceof Error ? error : new Error(messageOf(error));

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
