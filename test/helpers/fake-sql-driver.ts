/**
 * A SqlDriver without a server, for the tests of PooledConnector: it records what the base asks
 * of it (each connection's steps in order, the control pool's kills) and lets a test make any step
 * fail or hang, and answer a pool request late, which a real server does only by chance.
 */
import type { SqlStatement, SqlValue } from "../../core/search/sql/build-search.ts";
import type { SqlRow } from "../../core/search/sql/sql-adapter.ts";
import type {
  DriverFailureKind,
  DriverPool,
  PoolEvents,
  SqlDriver,
} from "../../core/search/sql/sql-driver.ts";

/** A connection of the fake driver: what was done with it, in order. */
export interface FakeConnection {
  id: number;
  log: string[];
}

/** A promise the test settles. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A pool without a server: it hands out idle connections first, else makes one (telling its
 * events), unless `manual`, when each request waits in `requests` for the test to answer it.
 */
export class FakePool implements DriverPool<FakeConnection> {
  readonly idle: FakeConnection[] = [];
  readonly requests: ReturnType<typeof deferred<FakeConnection>>[] = [];
  readonly queries: { sql: string; params: SqlValue[] }[] = [];
  manual = false;
  ended = false;
  #made = 0;

  constructor(
    readonly max: number,
    readonly events: PoolEvents | undefined,
    readonly driver: FakeSqlDriver,
  ) {}

  /** A new connection, numbered `max * 100 + n` (the search pool's are 501, 502, …). */
  make(): FakeConnection {
    this.#made += 1;
    const connection = { id: this.max * 100 + this.#made, log: [] };
    this.driver.made.push(connection);
    this.events?.opened(connection);
    return connection;
  }

  async acquire(): Promise<FakeConnection> {
    if (this.manual) {
      const request = deferred<FakeConnection>();
      this.requests.push(request);
      return request.promise;
    }
    return this.idle.pop() ?? this.make();
  }

  query(sql: string, params: SqlValue[]): Promise<unknown> {
    this.queries.push({ sql, params });
    return this.driver.onKill();
  }

  async end(): Promise<void> {
    this.ended = true;
  }
}

/**
 * Hooks that record what the base asks of them; a test swaps `onQuery`, `onExecute`, `onSetUp`
 * or `onKill` (the control pool's answer) to make them fail or hang.
 */
export class FakeSqlDriver implements SqlDriver<FakeConnection> {
  readonly label = "Fakebase";
  readonly timeLimitName = "fake_timeout";
  readonly beginSql = "BEGIN";
  readonly rollbackSql = "ROLLBACK";
  readonly pools: FakePool[] = [];
  /** Every connection the pools made, in order. */
  readonly made: FakeConnection[] = [];
  killNeedless: ((error: unknown) => boolean) | undefined;
  onKill: () => Promise<unknown> = async () => [];
  onQuery: (sql: string) => Promise<unknown> = async () => undefined;
  onExecute: () => Promise<SqlRow[]> = async () => [{ ok: 1 }];
  onSetUp: (() => Promise<void>) | undefined;

  get search(): FakePool {
    return this.pools[0] as FakePool;
  }

  openPool(max: number, events?: PoolEvents): FakePool {
    const pool = new FakePool(max, events, this);
    this.pools.push(pool);
    return pool;
  }

  identity(connection: FakeConnection): object {
    return connection;
  }

  get setUpSession() {
    const onSetUp = this.onSetUp;
    if (onSetUp === undefined) return undefined;
    return async (connection: FakeConnection) => {
      connection.log.push("set up");
      await onSetUp();
    };
  }

  query(connection: FakeConnection, sql: string): Promise<unknown> {
    connection.log.push(sql);
    return this.onQuery(sql);
  }

  execute(connection: FakeConnection, statement: SqlStatement): Promise<SqlRow[]> {
    connection.log.push(statement.sql);
    return this.onExecute();
  }

  release(connection: FakeConnection): void {
    connection.log.push("release");
    this.search.idle.push(connection);
  }

  discard(connection: FakeConnection, reason: Error): void {
    connection.log.push(`discard: ${reason.message}`);
  }

  backendId(connection: FakeConnection): number {
    return connection.id;
  }

  killStatement(id: number): SqlStatement {
    return { sql: `KILL ${id}`, params: [] };
  }

  failureKind(error: unknown): DriverFailureKind {
    return (error as { kind?: DriverFailureKind }).kind ?? "other";
  }
}
