/**
 * MySQL and MariaDB for the SQL adapter: one small mysql2 pool per site config, statements as
 * server-side prepared statements (values never enter the SQL text), each in
 * `START TRANSACTION READ ONLY`, with a server-side time limit set once per connection:
 * `max_execution_time` (milliseconds) on MySQL, `max_statement_time` (seconds) on MariaDB, told
 * apart by the server's version string.
 *
 * On abort the statement is really stopped: `KILL CONNECTION <thread id>`, sent from a separate
 * one-connection control pool (the search pool may be full of the very queries to stop), and the
 * connection is destroyed, which removes it from the pool. Closing the socket alone would leave
 * the statement running (the server notices a gone client only now and then). Killing the
 * connection rather than `KILL QUERY` because the connection is thrown away anyway, and a KILL
 * QUERY that arrives while the statement is still on its way is a no-op, after which the statement
 * runs to the time limit; a killed connection runs nothing more.
 */
import { InFlight } from "../../core/util/in-flight.ts";
import { readOnlyRound } from "../../core/search/sql/read-only-round.ts";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import mysql from "mysql2/promise";
import type { FieldType } from "../../core/search/search-types.ts";
import type { SqlStatement } from "../../core/search/sql/build-search.ts";
import { mysqlDialect } from "../../core/search/sql/dialect.ts";
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
import type { MysqlAdapterConfig } from "../../core/types/generated/site.ts";

export interface MysqlConnectorOptions {
  logger: Logger;
  /** The server-side time limit of a statement, in milliseconds. */
  statementTimeoutMs: number;
  /** Most connections of the search pool. */
  maxConnections: number;
  /** A socket under the outbound policy (PluginContext.socket); every connection uses one. */
  socket: () => Socket;
}

/** What the server is, learned from its version string on the first connection. */
interface ServerInfo {
  label: "MySQL" | "MariaDB";
  /** Window functions: MariaDB 10.2, MySQL 8.0. */
  windowFunctions: boolean;
}

/** "Unknown thread id", the answer to a KILL of a connection that has ended. */
const ER_NO_SUCH_THREAD = 1094;

/** Server errors of a statement stopped by the time limit: MySQL 3024, MariaDB 1969. */
const TIMED_OUT = new Set([3024, 1969]);

/** Server errors of an unknown table (1146) and an unknown column (1054). */
const UNDEFINED = new Set([1146, 1054]);

/**
 * The connection string's parameters the adapter honours. mysql2 would take any other one as a
 * driver option (`multipleStatements`, `typeCast`, …) and undo what this adapter relies on.
 */
const URL_PARAMETERS = new Set(["charset"]);

export class MysqlConnector implements SqlConnector {
  readonly dialect = mysqlDialect;
  readonly #base: mysql.PoolOptions;
  readonly #pool: mysql.Pool;
  /** Opened on the first abort; holds at most one connection. */
  #control: mysql.Pool | undefined;
  /** Statements in flight, and kills under way: close() waits for both. */
  readonly #active = new InFlight();
  readonly #kills = new InFlight();
  /** Connections whose session settings are made (keyed by mysql2's connection object). */
  readonly #ready = new WeakSet<object>();
  #server: Promise<ServerInfo> | undefined;
  /** "MariaDB" once a connection told, else the adapter's name. */
  #label: ServerInfo["label"] = "MySQL";
  readonly #redact: (text: string) => string;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #closed = false;

  constructor(config: MysqlAdapterConfig, options: MysqlConnectorOptions) {
    this.#redact = secretRedactor(config.connectionString);
    this.#logger = options.logger;
    this.#timeoutMs = options.statementTimeoutMs;
    this.#base = {
      ...connectionOptions(config.connectionString),
      // verifyIdentity: mysql2 checks the certificate against the host name only when asked.
      ...(config.ssl ? { ssl: { rejectUnauthorized: true, verifyIdentity: true } } : {}),
      // mysql2 takes the socket as it is, already connecting, and sets no socket options on it.
      stream: ({ config: target }: { config: StreamTarget }) => {
        const socket = options.socket();
        socket.setNoDelay(true);
        if (target.enableKeepAlive) socket.setKeepAlive(true, target.keepAliveInitialDelay);
        // A socketPath is a Unix socket, which the policy refuses.
        if (target.socketPath) socket.connect(target.socketPath);
        else socket.connect(target.port ?? 3306, target.host ?? "localhost");
        return socket;
      },
      multipleStatements: false,
      connectTimeout: options.statementTimeoutMs,
      enableKeepAlive: true,
      waitForConnections: true,
      queueLimit: 0,
      idleTimeout: 30_000,
      // Each distinct SQL text stays prepared on the server until evicted; the server's global
      // max_prepared_stmt_count is shared by every client, so keep few.
      maxPreparedStatements: 64,
      // DATE, DATETIME and TIMESTAMP as the server's text, turned into ISO by typeCast.
      dateStrings: true,
      decimalNumbers: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
      typeCast,
    };
    this.#pool = this.#newPool(options.maxConnections);
  }

  select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]> {
    return this.#active.track(this.#select(statement, signal));
  }

  async #select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]> {
    const connection = await this.#acquire(signal);
    const round = readOnlyRound({
      begin: () => connection.query("START TRANSACTION READ ONLY"),
      run: async () => (await connection.execute(statement.sql, statement.params))[0] as SqlRow[],
      rollback: () => connection.query("ROLLBACK"),
    });
    try {
      const rows = await untilAborted(round.done, signal);
      connection.release();
      return rows;
    } catch (error) {
      if (signal.aborted) {
        this.#kill(connection.threadId);
        connection.destroy();
        throw SqlAdapterError.cancelled(signal);
      }
      if (round.reusable()) connection.release();
      else connection.destroy();
      throw this.#failure(error);
    }
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

  stats(): PoolStats {
    // mysql2 keeps these counts in its pool's queues without a public accessor.
    const core = (this.#pool as unknown as { pool: CorePoolQueues }).pool;
    // An ended pool keeps its list of (ended) connections.
    if (core._closed === true) return { total: 0, idle: 0, waiting: 0, closed: true };
    const total = core._allConnections?.length ?? 0;
    const idle = core._freeConnections?.length ?? 0;
    const waiting = core._connectionQueue?.length ?? 0;
    return { total, idle, waiting, closed: false };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // The adapter aborted the statements in flight, so they settle at once, sending their
    // kills on the control pool, which is ended only after those are through.
    await this.#active.settled();
    await this.#kills.settled();
    await Promise.allSettled([this.#pool.end(), this.#control?.end()]);
  }

  #newPool(connectionLimit: number): mysql.Pool {
    const pool = mysql.createPool({ ...this.#base, connectionLimit, maxIdle: connectionLimit });
    // A connection that fails while idle is dropped by the pool, but mysql2 listens only once;
    // a second error without a listener would crash the process.
    pool.on("connection", (connection) => {
      connection.on("error", (error: unknown) =>
        this.#logger.debug({ error: this.#redact(messageOf(error)) }, "MySQL connection lost"),
      );
    });
    return pool;
  }

  async #acquire(signal: AbortSignal): Promise<mysql.PoolConnection> {
    if (this.#closed) throw SqlAdapterError.closed();
    const pending = this.#pool.getConnection();
    let connection: mysql.PoolConnection;
    try {
      connection = await untilAborted(pending, signal);
    } catch (error) {
      // A connection that arrives after the caller gave up goes straight back.
      if (signal.aborted)
        pending.then(
          (late) => late.release(),
          () => undefined,
        );
      if (error instanceof SqlAdapterError) throw error;
      throw this.#connectFailure(error);
    }
    if (this.#ready.has(connection.connection)) return connection;
    try {
      await untilAborted(this.#prepareSession(connection), signal);
      this.#ready.add(connection.connection);
      return connection;
    } catch (error) {
      connection.destroy();
      if (error instanceof SqlAdapterError) throw error;
      throw this.#connectFailure(error);
    }
  }

  /** The session settings of a new connection: UTC for TIMESTAMP values, and the time limit. */
  async #prepareSession(connection: mysql.PoolConnection): Promise<void> {
    this.#server ??= connection
      .query("SELECT VERSION() AS version")
      .then(([rows]) => serverInfo(String((rows as SqlRow[])[0]?.version ?? "")));
    let server: ServerInfo;
    try {
      server = await this.#server;
    } catch (error) {
      this.#server = undefined; // the next connection asks again
      throw error;
    }
    this.#label = server.label;
    const limit =
      server.label === "MariaDB"
        ? `max_statement_time = ${this.#timeoutMs / 1000}`
        : `max_execution_time = ${Math.round(this.#timeoutMs)}`;
    await connection.query(`SET SESSION time_zone = '+00:00', ${limit}`);
  }

  /** What the server is; the session set-up of the first connection finds out. */
  async #serverInfo(signal: AbortSignal): Promise<ServerInfo> {
    if (this.#server === undefined) (await this.#acquire(signal)).release();
    if (this.#server === undefined) throw new Error("the MySQL session set-up did not run");
    try {
      return await this.#server;
    } catch (error) {
      throw error instanceof SqlAdapterError ? error : this.#connectFailure(error);
    }
  }

  /** Ends connection `threadId` on the server; if that fails, the time limit still stops it. */
  #kill(threadId: number): void {
    if (!Number.isSafeInteger(threadId)) return;
    this.#control ??= this.#newPool(1);
    const kill = this.#control.query(`KILL CONNECTION ${threadId}`).then(
      () => undefined,
      (error: unknown) => {
        // The thread is gone already (its socket was closed first): nothing left to stop.
        if ((error as { errno?: unknown }).errno === ER_NO_SUCH_THREAD) return;
        this.#logger.warn(
          { threadId, error: this.#redact(messageOf(error)) },
          "could not kill a MySQL query; the server's time limit will stop it",
        );
      },
    );
    this.#kills.track(kill);
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

  /** A connection that could not be made: the reason is logged, the caller reads connectFailure's. */
  #connectFailure(error: unknown): SqlAdapterError {
    this.#logger.warn(
      { code: codeOf(error), error: this.#redact(messageOf(error)) },
      `could not connect to ${this.#label}`,
    );
    return connectFailure(error);
  }

  /** A statement that failed: the reason is logged, the caller reads one of a few fixed messages. */
  #failure(error: unknown): SqlAdapterError {
    const errno = (error as { errno?: unknown } | null)?.errno;
    const code = codeOf(error);
    const label = this.#label;
    if (typeof errno === "number" && TIMED_OUT.has(errno)) {
      return new SqlAdapterError(
        "backend",
        `${label} stopped the query after ${this.#timeoutMs / 1000} s (server time limit)`,
        code,
      );
    }
    this.#logger.warn(
      { code, errno, error: this.#redact(messageOf(error)) },
      `${label} query failed`,
    );
    if (typeof errno === "number" && UNDEFINED.has(errno)) {
      return new SqlAdapterError("backend", MISSING_RELATION, code);
    }
    return new SqlAdapterError("backend", QUERY_FAILED, code);
  }
}

/** Where mysql2 asks the `stream` factory to connect (its connection config). */
interface StreamTarget {
  host?: string;
  port?: number;
  socketPath?: string;
  enableKeepAlive?: boolean;
  keepAliveInitialDelay?: number;
}

interface CorePoolQueues {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
  _closed?: boolean;
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

function serverInfo(version: string): ServerInfo {
  const [major = 0, minor = 0] = (/^(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  if (/mariadb/i.test(version)) {
    return { label: "MariaDB", windowFunctions: major > 10 || (major === 10 && minor >= 2) };
  }
  return { label: "MySQL", windowFunctions: major >= 8 };
}

/**
 * The connection options of a `mysql://user:password@host:port/database` URL, parsed here rather
 * than by mysql2, which would take any query parameter as a driver option.
 */
function connectionOptions(connectionString: string): mysql.PoolOptions {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new Error("the connection string is not a valid URL");
  }
  if (url.protocol !== "mysql:") throw new Error("the connection string must start with mysql://");
  for (const key of url.searchParams.keys()) {
    if (!URL_PARAMETERS.has(key)) {
      throw new Error(
        `connection string parameter ${JSON.stringify(key)} is not supported ` +
          `(supported: ${[...URL_PARAMETERS].join(", ")})`,
      );
    }
  }
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new Error("the connection string has an invalid %-escape");
    }
  };
  const charset = url.searchParams.get("charset");
  return {
    host: decode(url.hostname.replace(/^\[(.*)\]$/, "$1")) || "localhost",
    port: url.port === "" ? 3306 : Number(url.port),
    user: decode(url.username),
    password: decode(url.password),
    database: decode(url.pathname.slice(1)) || undefined,
    ...(charset === null ? {} : { charset }),
  };
}

/**
 * Column values as JSON-friendly types: TINYINT(1) (BOOLEAN) as a boolean, DATE as `YYYY-MM-DD`,
 * DATETIME as ISO without a zone (it has none), TIMESTAMP as ISO UTC (the session's time zone is
 * UTC). DECIMAL and BIGINT become numbers by the pool options (BIGINT beyond 2^53 stays a
 * string).
 */
function typeCast(field: mysql.TypeCastField, next: () => unknown): unknown {
  switch (field.type) {
    case "TINY": {
      if (field.length !== 1) return next();
      const text = field.string();
      return text === null ? null : text !== "0";
    }
    case "DATETIME":
    case "DATETIME2": {
      const text = field.string();
      return text === null || text.startsWith("0000") ? text : text.replace(" ", "T");
    }
    case "TIMESTAMP":
    case "TIMESTAMP2": {
      const text = field.string();
      return text === null || text.startsWith("0000") ? text : `${text.replace(" ", "T")}Z`;
    }
    default:
      return next();
  }
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
