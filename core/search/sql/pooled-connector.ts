/**
 * What every SQL connector does with its driver's pool, whatever the database: a connection is
 * acquired under the caller's AbortSignal (one that arrives after the caller gave up goes straight
 * back), each statement runs in a read-only round (begin, run, ROLLBACK whatever happened; a
 * connection whose ROLLBACK failed is not reused), and a driver's failure becomes a SqlAdapterError
 * with one of a few fixed messages, its reason logged with the password masked.
 *
 * On abort the statement is really stopped: the server ends the connection (pg_terminate_backend,
 * KILL CONNECTION) on an order sent from a separate one-connection control pool, as the search
 * pool may be full of the very queries to stop, and the connection is discarded. Closing the
 * socket alone would leave the statement running (neither server notices a gone client mid-query).
 * The connection is ended rather than only its query because it is thrown away anyway, and a query
 * cancel that arrives while the statement is still on its way is a no-op, after which the
 * statement runs to the server's time limit; an ended connection runs nothing more. close() waits
 * for the statements and kills in flight before it ends the pools.
 *
 * A connector extends this with its dialect, its catalog queries, and a SqlDriver for the rest.
 */
import type { Logger } from "../../host/logger.ts";
import { InFlight } from "../../util/in-flight.ts";
import type { SqlStatement } from "./build-search.ts";
import type { SqlDialect } from "./dialect.ts";
import {
  MISSING_RELATION,
  QUERY_FAILED,
  SqlAdapterError,
  codeOf,
  connectFailure,
  messageOf,
  secretRedactor,
  untilAborted,
} from "./errors.ts";
import { PoolTally } from "./pool-tally.ts";
import { readOnlyRound } from "./read-only-round.ts";
import type { CatalogColumn, PoolStats, SqlConnector, SqlRow } from "./sql-adapter.ts";
import type { DriverPool, SqlDriver } from "./sql-driver.ts";

export interface PooledConnectorOptions {
  logger: Logger;
  /** The server-side time limit of a statement, in milliseconds (named in its message). */
  statementTimeoutMs: number;
  /** Most connections of the search pool. */
  maxConnections: number;
  /** Masked, with its password, in every driver message that is logged. */
  connectionString: string;
}

export abstract class PooledConnector<C> implements SqlConnector {
  abstract readonly dialect: SqlDialect;
  readonly #driver: SqlDriver<C>;
  readonly #pool: DriverPool<C>;
  /** Opened on the first abort; holds at most one connection. */
  #control: DriverPool<C> | undefined;
  readonly #tally = new PoolTally();
  /** Statements in flight, and kills under way: close() waits for both. */
  readonly #active = new InFlight();
  readonly #kills = new InFlight();
  /** Connections whose session set-up is done, by SqlDriver.identity. */
  readonly #ready = new WeakSet<object>();
  readonly #redact: (text: string) => string;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #closed = false;

  constructor(driver: SqlDriver<C>, options: PooledConnectorOptions) {
    this.#driver = driver;
    this.#redact = secretRedactor(options.connectionString);
    this.#logger = options.logger;
    this.#timeoutMs = options.statementTimeoutMs;
    this.#pool = driver.openPool(options.maxConnections, this.#tally);
  }

  abstract columns(relation: readonly string[], signal: AbortSignal): Promise<CatalogColumn[]>;
  abstract primaryKey(relation: readonly string[], signal: AbortSignal): Promise<string[]>;
  abstract countsInWindow(signal: AbortSignal): Promise<boolean>;

  select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]> {
    return this.#active.track(this.#select(statement, signal));
  }

  stats(): PoolStats {
    return this.#tally.stats();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#tally.closing();
    // The adapter aborted the statements in flight, so they settle at once, sending their kills
    // on the control pool, which is ended only after those are through.
    await this.#active.settled();
    await this.#kills.settled();
    await Promise.allSettled([this.#pool.end(), this.#control?.end()]);
    this.#tally.ended();
  }

  /** Acquires a connection, so that its session set-up runs, and gives it back. */
  protected async setUpConnection(signal: AbortSignal): Promise<void> {
    this.#release(await this.#acquire(signal));
  }

  /** A connection that could not be made: the reason is logged, the caller reads connectFailure's. */
  protected connectFailure(error: unknown): SqlAdapterError {
    this.#logger.warn(
      { code: codeOf(error), error: this.#redact(messageOf(error)) },
      `could not connect to ${this.#driver.label}`,
    );
    return connectFailure(error);
  }

  async #select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]> {
    const driver = this.#driver;
    const connection = await this.#acquire(signal);
    const round = readOnlyRound({
      begin: () => driver.query(connection, driver.beginSql),
      run: () => driver.execute(connection, statement),
      rollback: () => driver.query(connection, driver.rollbackSql),
    });
    try {
      const rows = await untilAborted(round.done, signal);
      this.#release(connection);
      return rows;
    } catch (error) {
      if (signal.aborted) {
        this.#kill(driver.backendId(connection));
        this.#discard(connection, new Error("the query was cancelled"));
        throw SqlAdapterError.cancelled(signal);
      }
      if (round.reusable()) this.#release(connection);
      else this.#discard(connection, toError(error));
      throw this.#failure(error);
    }
  }

  async #acquire(signal: AbortSignal): Promise<C> {
    if (this.#closed) throw SqlAdapterError.closed();
    const answered = this.#tally.asked();
    const pending = this.#pool.acquire();
    pending.then(answered, answered);
    let connection: C;
    try {
      connection = await untilAborted(pending, signal);
    } catch (error) {
      // A connection that arrives after the caller gave up goes straight back.
      if (signal.aborted) {
        pending.then(
          (late) => {
            this.#tally.checkedOut(this.#driver.identity(late));
            this.#release(late);
          },
          () => undefined,
        );
      }
      if (error instanceof SqlAdapterError) throw error;
      throw this.connectFailure(error);
    }
    const identity = this.#driver.identity(connection);
    this.#tally.checkedOut(identity);
    if (this.#driver.setUpSession === undefined || this.#ready.has(identity)) return connection;
    try {
      await untilAborted(this.#driver.setUpSession(connection), signal);
      this.#ready.add(identity);
      return connection;
    } catch (error) {
      this.#discard(connection, toError(error));
      if (error instanceof SqlAdapterError) throw error;
      throw this.connectFailure(error);
    }
  }

  #release(connection: C): void {
    this.#tally.checkedIn(this.#driver.identity(connection));
    this.#driver.release(connection);
  }

  #discard(connection: C, reason: Error): void {
    this.#tally.removed(this.#driver.identity(connection));
    this.#driver.discard(connection, reason);
  }

  /** Ends server connection `id`; if that fails, the server's time limit still stops its query. */
  #kill(id: number | undefined): void {
    if (id === undefined || !Number.isSafeInteger(id)) return;
    const driver = this.#driver;
    this.#control ??= driver.openPool(1);
    const { sql, params } = driver.killStatement(id);
    const kill = this.#control.query(sql, params).then(
      () => undefined,
      (error: unknown) => {
        if (driver.killNeedless?.(error)) return;
        this.#logger.warn(
          { backendId: id, error: this.#redact(messageOf(error)) },
          `could not stop a ${driver.label} query; its ${driver.timeLimitName} will`,
        );
      },
    );
    this.#kills.track(kill);
  }

  /** A statement that failed: the reason is logged, the caller reads one of a few fixed messages. */
  #failure(error: unknown): SqlAdapterError {
    const { label, timeLimitName } = this.#driver;
    const kind = this.#driver.failureKind(error);
    const code = codeOf(error);
    if (kind === "timeout") {
      return new SqlAdapterError(
        "backend",
        `${label} stopped the query after ${this.#timeoutMs / 1000} s (${timeLimitName})`,
        code,
      );
    }
    const errno = (error as { errno?: unknown } | null)?.errno;
    this.#logger.warn(
      {
        code,
        ...(typeof errno === "number" ? { errno } : {}),
        error: this.#redact(messageOf(error)),
      },
      `${label} query failed`,
    );
    return new SqlAdapterError(
      "backend",
      kind === "missing" ? MISSING_RELATION : QUERY_FAILED,
      code,
    );
  }
}

const toError = (error: unknown): Error =>
  error instanceof Error ? error : new Error(messageOf(error));
