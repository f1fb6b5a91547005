/**
 * What one database driver gives PooledConnector: the few things pg and mysql2 do differently.
 * Everything else a SQL connector does (acquiring under the caller's signal, the read-only round,
 * stopping a statement on the server, the pool's counts, closing, the messages of failures) is
 * the same for every database and lives in PooledConnector, so that a fix to it is made once.
 */
import type { SqlStatement, SqlValue } from "./build-search.ts";
import type { SqlRow } from "./sql-adapter.ts";

/** A driver's pool as PooledConnector uses it; `C` is the driver's pooled connection. */
export interface DriverPool<C> {
  /** A connection, idle or new; rejects with the driver's error when none could be made. */
  acquire(): Promise<C>;
  /** One statement on any connection of the pool: the control pool's kills. */
  query(sql: string, params: SqlValue[]): Promise<unknown>;
  /** Ends every connection; resolves once they are ended. */
  end(): Promise<void>;
}

/**
 * What a pool tells PooledConnector about its connections, from the driver's public events, so
 * that the pool's counts never depend on a driver's private fields. A connection is named by
 * SqlDriver.identity.
 */
export interface PoolEvents {
  /** The pool made a connection. */
  opened(connection: object): void;
  /** The pool dropped a connection: it failed, ended or was removed. Said once or more. */
  removed(connection: object): void;
}

/** How a failed statement reads: stopped by the server's time limit, a missing table or column, or else. */
export type DriverFailureKind = "timeout" | "missing" | "other";

export interface SqlDriver<C> {
  /**
   * The server's name in log lines and in the message of a statement the time limit stopped.
   * It may change once a connection tells what the server is (MySQL or MariaDB).
   */
  readonly label: string;
  /** The server-side time limit's name, in the message of a statement it stopped. */
  readonly timeLimitName: string;
  /** Opens a round's read-only transaction (and sets the time limit where it is per transaction). */
  readonly beginSql: string;
  /** Ends a round, whatever it did. */
  readonly rollbackSql: string;

  /**
   * A pool of at most `max` connections, each made through the outbound policy's socket.
   * `events`, when given, hears of every connection the pool makes and drops.
   */
  openPool(max: number, events?: PoolEvents): DriverPool<C>;
  /** The object that names `connection` in PoolEvents (mysql2 wraps its connections). */
  identity(connection: C): object;
  /** The settings a new connection needs before its first round, when the server has any. */
  setUpSession?(connection: C): Promise<void>;
  /** A statement without values (begin, rollback). */
  query(connection: C, sql: string): Promise<unknown>;
  /** A search statement with its bound values; the rows as JSON-friendly values. */
  execute(connection: C, statement: SqlStatement): Promise<SqlRow[]>;
  /** Gives a connection back to its pool for reuse. */
  release(connection: C): void;
  /** Closes a connection and drops it from its pool; `reason` is why, for drivers that keep it. */
  discard(connection: C, reason: Error): void;
  /** The server's id of the connection (backend pid, thread id), which the kill statement names. */
  backendId(connection: C): number | undefined;
  /** The statement, run from the control pool, that ends server connection `id` and its query. */
  killStatement(id: number): SqlStatement;
  /** Whether a failed kill only means there was nothing left to stop (MySQL's unknown thread). */
  killNeedless?(error: unknown): boolean;
  /** What a statement's failure means, from the driver's codes. */
  failureKind(error: unknown): DriverFailureKind;
}
