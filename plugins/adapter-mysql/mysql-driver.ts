/**
 * What PooledConnector needs of mysql2: small pools whose connections use the outbound policy's
 * socket, statements as server-side prepared statements (values never enter the SQL text), each
 * in `START TRANSACTION READ ONLY`, with a server-side time limit set once per connection:
 * `max_execution_time` (milliseconds) on MySQL, `max_statement_time` (seconds) on MariaDB, told
 * apart by the server's version string. `KILL CONNECTION <thread id>` stops a statement, and
 * mysql2's error numbers say what a failure means.
 *
 * A connection is discarded by destroying it, which removes it from the pool.
 */
import type { Socket } from "node:net";
import type { Logger } from "sitevoice";
import mysql from "mysql2/promise";
import type { SqlStatement, SqlValue } from "sitevoice/sql";
import { messageOf, secretRedactor } from "sitevoice/sql";
import type { SqlRow } from "sitevoice/sql";
import type { DriverFailureKind, DriverPool, PoolEvents, SqlDriver } from "sitevoice/sql";
import type { MysqlAdapterConfig } from "./generated/config.ts";
import { connectionOptions } from "./connection-options.ts";
import { typeCast } from "./type-cast.ts";

export interface MysqlDriverOptions {
  logger: Logger;
  /** The server-side time limit of a statement, in milliseconds. */
  statementTimeoutMs: number;
  /** A socket under the outbound policy (PluginContext.socket); every connection uses one. */
  socket: () => Socket;
}

/** What the server is, learned from its version string on the first connection. */
export interface ServerInfo {
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

export class MysqlDriver implements SqlDriver<mysql.PoolConnection> {
  readonly timeLimitName = "server time limit";
  readonly beginSql = "START TRANSACTION READ ONLY";
  readonly rollbackSql = "ROLLBACK";
  readonly #base: mysql.PoolOptions;
  readonly #logger: Logger;
  readonly #redact: (text: string) => string;
  readonly #timeoutMs: number;
  #server: Promise<ServerInfo> | undefined;
  /** "MariaDB" once a connection told, else the adapter's name. */
  #label: ServerInfo["label"] = "MySQL";

  constructor(config: MysqlAdapterConfig, options: MysqlDriverOptions) {
    this.#logger = options.logger;
    this.#redact = secretRedactor(config.connectionString);
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
  }

  get label(): string {
    return this.#label;
  }

  /** What the server is, once a connection's session set-up has asked; undefined before. */
  get server(): Promise<ServerInfo> | undefined {
    return this.#server;
  }

  openPool(max: number, events?: PoolEvents): DriverPool<mysql.PoolConnection> {
    const pool = mysql.createPool({ ...this.#base, connectionLimit: max, maxIdle: max });
    // mysql2 drops a connection from its pool on the connection's `end` or `error` (and on
    // destroy, which the connector does itself). It listens to `error` only once; a second
    // error without a listener would crash the process.
    pool.on("connection", (connection) => {
      connection.on("error", (error: unknown) => {
        this.#logger.debug({ error: this.#redact(messageOf(error)) }, "MySQL connection lost");
        events?.removed(connection);
      });
      connection.once("end", () => events?.removed(connection));
      events?.opened(connection);
    });
    return {
      acquire: () => pool.getConnection(),
      query: (sql: string, params: SqlValue[]) => pool.query(sql, params),
      end: () => pool.end(),
    };
  }

  /** The core connection, which the pool's events name, under mysql2's promise wrapper. */
  identity(connection: mysql.PoolConnection): object {
    return connection.connection;
  }

  /** The session settings of a new connection: UTC for TIMESTAMP values, and the time limit. */
  async setUpSession(connection: mysql.PoolConnection): Promise<void> {
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

  query(connection: mysql.PoolConnection, sql: string): Promise<unknown> {
    return connection.query(sql);
  }

  async execute(connection: mysql.PoolConnection, statement: SqlStatement): Promise<SqlRow[]> {
    return (await connection.execute(statement.sql, statement.params))[0] as SqlRow[];
  }

  release(connection: mysql.PoolConnection): void {
    connection.release();
  }

  discard(connection: mysql.PoolConnection): void {
    connection.destroy();
  }

  backendId(connection: mysql.PoolConnection): number {
    return connection.threadId;
  }

  killStatement(threadId: number): SqlStatement {
    return { sql: `KILL CONNECTION ${threadId}`, params: [] };
  }

  /** The thread is gone already (its socket was closed first): nothing left to stop. */
  killNeedless(error: unknown): boolean {
    return errnoOf(error) === ER_NO_SUCH_THREAD;
  }

  failureKind(error: unknown): DriverFailureKind {
    const errno = errnoOf(error);
    if (errno !== undefined && TIMED_OUT.has(errno)) return "timeout";
    return errno !== undefined && UNDEFINED.has(errno) ? "missing" : "other";
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

function errnoOf(error: unknown): number | undefined {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === "number" ? errno : undefined;
}

function serverInfo(version: string): ServerInfo {
  const [major = 0, minor = 0] = (/^(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  if (/mariadb/i.test(version)) {
    return { label: "MariaDB", windowFunctions: major > 10 || (major === 10 && minor >= 2) };
  }
  return { label: "MySQL", windowFunctions: major >= 8 };
}
