import { expect } from "chai";
import { pino } from "pino";
import {
  FakeSqlDriver,
  deferred,
  type FakeConnection,
  type FakePool,
} from "../../../test/helpers/fake-sql-driver.ts";
import type { SqlStatement } from "./build-search.ts";
import { postgresDialect } from "./dialect.ts";
import { CONNECT_FAILED, MISSING_RELATION, QUERY_FAILED, SqlAdapterError } from "./errors.ts";
import { PooledConnector } from "./pooled-connector.ts";
import type { SqlRow } from "./sql-adapter.ts";

const PASSWORD = "Fake-S3cret";
const CONNECTION_STRING = `fake://reader:${PASSWORD}@db.internal/shop`;

/** Lets every callback already due run (promise reactions, then timers' and I/O's turn). */
const flush = () => new Promise((resolve) => setImmediate(resolve));

class FakeConnector extends PooledConnector<FakeConnection> {
  readonly dialect = postgresDialect;
  async columns() {
    return [];
  }
  async primaryKey() {
    return [];
  }
  async countsInWindow() {
    return true;
  }
}

const statement: SqlStatement = { sql: "SELECT 1", params: [] };
const never = () => new AbortController().signal;

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<SqlAdapterError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(SqlAdapterError);
    return error as SqlAdapterError;
  }
  return expect.fail("expected a rejection");
}

describe("PooledConnector (with a fake driver)", () => {
  let driver: FakeSqlDriver;
  let connector: FakeConnector;
  let logged: string[];

  beforeEach(() => {
    driver = new FakeSqlDriver();
    logged = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void logged.push(line) });
    connector = new FakeConnector(driver, {
      logger,
      statementTimeoutMs: 10_000,
      maxConnections: 5,
      connectionString: CONNECTION_STRING,
    });
  });

  it("runs a statement in a read-only round and gives the connection back", async () => {
    expect(await connector.select(statement, never())).to.deep.equal([{ ok: 1 }]);
    const [connection] = driver.search.idle;
    expect(connection?.log).to.deep.equal(["BEGIN", "SELECT 1", "ROLLBACK", "release"]);
    expect(driver.search.max).to.equal(5);
    expect(connector.stats()).to.deep.equal({ total: 1, idle: 1, waiting: 0, closed: false });
  });

  it("gives a connection that arrives after the caller gave up straight back", async () => {
    driver.search.manual = true;
    const controller = new AbortController();
    const pending = connector.select(statement, controller.signal);
    await flush();
    expect(connector.stats()).to.include({ waiting: 1, total: 0 });
    controller.abort(new Error("deadline"));
    expect((await rejection(pending)).kind).to.equal("cancelled");

    const late = driver.search.make();
    driver.search.requests[0]?.resolve(late);
    await flush();
    expect(late.log).to.deep.equal(["release"]);
    expect(connector.stats()).to.deep.equal({ total: 1, idle: 1, waiting: 0, closed: false });
  });

  /** Starts a statement that runs until its signal aborts; resolves once it runs. */
  async function hanging(signal: AbortSignal): Promise<{ pending: Promise<SqlRow[]> }> {
    const running = deferred<void>();
    driver.onExecute = () => {
      running.resolve();
      return new Promise<SqlRow[]>(() => undefined);
    };
    const pending = connector.select(statement, signal);
    await running.promise;
    return { pending };
  }

  it("on abort mid-statement, ends it on the server from a one-connection control pool and discards the connection", async () => {
    for (const round of [1, 2]) {
      const controller = new AbortController();
      const { pending } = await hanging(controller.signal);
      controller.abort(new Error("deadline"));
      expect((await rejection(pending)).kind, `round ${round}`).to.equal("cancelled");
    }
    // Two connections (ids 501, 502: pool of 5, first and second made), one control pool.
    expect(driver.pools.map((pool) => pool.max)).to.deep.equal([5, 1]);
    expect(driver.pools[1]?.queries).to.deep.equal([
      { sql: "KILL 501", params: [] },
      { sql: "KILL 502", params: [] },
    ]);
    expect(driver.made.map((connection) => connection.log.at(-1))).to.deep.equal([
      "discard: the query was cancelled",
      "discard: the query was cancelled",
    ]);
    expect(driver.search.idle).to.deep.equal([]);
    expect(connector.stats()).to.deep.equal({ total: 0, idle: 0, waiting: 0, closed: false });
  });

  it("close() waits for the kills in flight, then ends both pools", async () => {
    const kill = deferred<unknown>();
    driver.onKill = () => kill.promise;
    const controller = new AbortController();
    const { pending } = await hanging(controller.signal);
    controller.abort(new Error("closing"));
    await rejection(pending);

    let closed = false;
    const closing = connector.close().then(() => (closed = true));
    for (let turn = 0; turn < 5; turn++) await flush();
    const control = driver.pools[1] as FakePool;
    expect(control.queries).to.have.length(1);
    expect(closed).to.equal(false);
    expect(driver.search.ended).to.equal(false);
    expect(control.ended).to.equal(false);
    expect(connector.stats().closed).to.equal(true);

    kill.resolve([]);
    await closing;
    expect(driver.search.ended).to.equal(true);
    expect(control.ended).to.equal(true);
    expect(connector.stats()).to.deep.equal({ total: 0, idle: 0, waiting: 0, closed: true });
    expect((await rejection(connector.select(statement, never()))).kind).to.equal("closed");
  });

  it("logs a kill that failed, with the password masked", async () => {
    driver.onKill = async () => {
      throw new Error(`lost the control connection to ${CONNECTION_STRING}`);
    };
    const controller = new AbortController();
    const { pending } = await hanging(controller.signal);
    controller.abort(new Error("deadline"));
    await rejection(pending);
    await connector.close();
    const log = logged.join("\n");
    expect(log).to.include("could not stop a Fakebase query; its fake_timeout will");
    expect(log).to.include("lost the control connection to ***");
    expect(log).not.to.include(PASSWORD);
  });

  it("logs nothing for a kill the driver says found nothing left to stop", async () => {
    driver.onKill = async () => {
      throw new Error("unknown thread id");
    };
    driver.killNeedless = (error) => /unknown thread/.test((error as Error).message);
    const controller = new AbortController();
    const { pending } = await hanging(controller.signal);
    controller.abort(new Error("deadline"));
    await rejection(pending);
    await connector.close();
    expect(driver.pools[1]?.queries).to.have.length(1);
    expect(logged).to.deep.equal([]);
  });

  it("discards a connection whose ROLLBACK failed, and reports the failure", async () => {
    driver.onQuery = async (sql) => {
      if (sql === "ROLLBACK") throw new Error("connection reset");
    };
    const error = await rejection(connector.select(statement, never()));
    expect(error.message).to.equal(QUERY_FAILED);
    expect(driver.made[0]?.log).to.deep.equal([
      "BEGIN",
      "SELECT 1",
      "ROLLBACK",
      "discard: connection reset",
    ]);
    expect(connector.stats()).to.deep.equal({ total: 0, idle: 0, waiting: 0, closed: false });
  });

  it("keeps a connection whose statement failed but whose ROLLBACK went through", async () => {
    driver.onExecute = async () => {
      throw Object.assign(new Error('relation "nope" does not exist'), { kind: "missing" });
    };
    const error = await rejection(connector.select(statement, never()));
    expect(error.message).to.equal(MISSING_RELATION);
    expect(driver.made[0]?.log).to.deep.equal(["BEGIN", "SELECT 1", "ROLLBACK", "release"]);
    expect(connector.stats()).to.include({ total: 1, idle: 1 });
  });

  it("gives each failure its fixed message, and logs the reason with the password masked", async () => {
    const failures: [unknown, string][] = [
      [
        Object.assign(new Error("too slow"), { kind: "timeout" }),
        "Fakebase stopped the query after 10 s (fake_timeout)",
      ],
      [
        Object.assign(new Error("no column x"), { kind: "missing", code: "42703" }),
        MISSING_RELATION,
      ],
      [new Error(`syntax error near ${PASSWORD}`), QUERY_FAILED],
    ];
    for (const [failure, message] of failures) {
      driver.onExecute = async () => {
        throw failure;
      };
      expect((await rejection(connector.select(statement, never()))).message).to.equal(message);
    }
    const log = logged.join("\n");
    expect(log).to.include("Fakebase query failed");
    expect(log).to.include("no column x");
    expect(log).to.include("syntax error near ***");
    expect(log).not.to.include(PASSWORD);
  });

  it("gives a connection that could not be made one message, and logs the masked reason", async () => {
    driver.search.manual = true;
    const pending = connector.select(statement, never());
    await flush();
    driver.search.requests[0]?.reject(
      Object.assign(new Error(`password authentication failed: ${CONNECTION_STRING}`), {
        code: "28P01",
      }),
    );
    const error = await rejection(pending);
    expect(error).to.include({ kind: "backend", message: CONNECT_FAILED, code: "28P01" });
    expect(connector.stats()).to.include({ waiting: 0, total: 0 });
    const log = logged.join("\n");
    expect(log).to.include("could not connect to Fakebase");
    expect(log).to.include("password authentication failed: ***");
    expect(log).not.to.include(PASSWORD);
  });

  it("sets a connection's session up once, and discards one whose set-up failed", async () => {
    let setUps = 0;
    driver.onSetUp = async () => {
      setUps += 1;
      if (setUps === 1) throw new Error("server went away");
    };
    const error = await rejection(connector.select(statement, never()));
    expect(error.message).to.equal(CONNECT_FAILED);
    expect(driver.made[0]?.log).to.deep.equal(["set up", "discard: server went away"]);

    await connector.select(statement, never());
    await connector.select(statement, never());
    expect(driver.made).to.have.length(2);
    expect(driver.made[1]?.log.filter((step) => step === "set up")).to.have.length(1);
    expect(connector.stats()).to.deep.equal({ total: 1, idle: 1, waiting: 0, closed: false });
  });

  it("counts the connections the pool says it made and dropped", async () => {
    const made = driver.search.make();
    driver.search.idle.push(made);
    expect(connector.stats()).to.include({ total: 1, idle: 1 });
    await connector.select(statement, never());
    expect(connector.stats()).to.include({ total: 1, idle: 1 });
    driver.search.events?.removed(made);
    driver.search.idle.length = 0;
    expect(connector.stats()).to.include({ total: 0, idle: 0 });
  });
});
