import { expect } from "chai";
import type { AdapterQuery, CollectionSpec } from "../search-types.ts";
import type { SqlStatement } from "./build-search.ts";
import { postgresDialect } from "./dialect.ts";
import { SqlAdapterError, untilAborted } from "./errors.ts";
import { SqlAdapter, type SqlConnector, type SqlRow } from "./sql-adapter.ts";

/**
 * A connector without a database: it records the statements it is given and answers the key
 * lookups from `keys`, in order, so the tests see when SqlAdapter asks the catalog and what it
 * does with the answer.
 */
class FakeConnector implements SqlConnector {
  readonly dialect = postgresDialect;
  readonly statements: string[] = [];
  readonly lookups: string[] = [];
  readonly keys: (() => Promise<string[]>)[];

  constructor(...keys: (() => Promise<string[]>)[]) {
    this.keys = keys;
  }

  async select(statement: SqlStatement): Promise<SqlRow[]> {
    this.statements.push(statement.sql);
    return statement.sql.startsWith("SELECT COUNT(*)") ? [{ total: 1 }] : [{ name: "Oslo Sofa" }];
  }

  /** Like a real connector, it stops (rejects) when its signal aborts. */
  async primaryKey(relation: readonly string[], signal: AbortSignal): Promise<string[]> {
    this.lookups.push(relation.join("."));
    const next = this.keys.shift();
    if (next === undefined) throw new Error("no key answer left");
    return untilAborted(next(), signal);
  }

  async columns() {
    return [];
  }

  async countsInWindow() {
    return false;
  }

  stats() {
    return { total: 0, idle: 0, waiting: 0, closed: false };
  }

  async close() {}
}

const collection = (source: string): CollectionSpec => ({
  name: "products",
  source,
  searchable_fields: [],
  filterable_fields: [],
  display_fields: ["name"],
});

const query: AdapterQuery = { searchFields: [], filters: [], limit: 10, fields: ["name"] };
const never = () => new AbortController().signal;
const key = (columns: string[]) => () => Promise.resolve(columns);

describe("SQL adapter: the primary key that orders ties", () => {
  it("asks the catalog once per relation, and orders by its answer", async () => {
    const connector = new FakeConnector(key(["sku"]), key(["id"]));
    const adapter = new SqlAdapter(connector);
    await adapter.search(collection("products"), query, { signal: never() });
    await adapter.search(collection("products"), query, { signal: never() });
    await adapter.search(collection("shop.products"), query, { signal: never() });
    expect(connector.lookups).to.deep.equal(["products", "shop.products"]);
    const searches = connector.statements.filter((sql) => sql.includes('SELECT "name"'));
    expect(searches).to.deep.equal([
      'SELECT "name" FROM "products" ORDER BY "sku" ASC LIMIT 10',
      'SELECT "name" FROM "products" ORDER BY "sku" ASC LIMIT 10',
      'SELECT "name" FROM "shop"."products" ORDER BY "id" ASC LIMIT 10',
    ]);
  });

  it("asks again after a failed lookup, which fails its search", async () => {
    const down = () => Promise.reject(new SqlAdapterError("backend", "PostgreSQL: gone"));
    const connector = new FakeConnector(down, key(["sku"]));
    const adapter = new SqlAdapter(connector);
    const failed = await adapter.search(collection("products"), query, { signal: never() });
    expect(failed).to.deep.equal({ success: false, error: "PostgreSQL: gone" });
    const found = await adapter.search(collection("products"), query, { signal: never() });
    expect(found.success).to.equal(true);
    expect(connector.lookups).to.deep.equal(["products", "products"]);
  });

  it("does not fail a search sharing a lookup whose first caller gave up", async () => {
    let answer: (columns: string[]) => void = () => undefined;
    const pending = new Promise<string[]>((resolve) => (answer = resolve));
    const connector = new FakeConnector(() => pending);
    const adapter = new SqlAdapter(connector);
    const giving = new AbortController();
    const first = adapter.search(collection("products"), query, { signal: giving.signal });
    const second = adapter.search(collection("products"), query, { signal: never() });
    giving.abort(new Error("the client went away"));
    answer(["sku"]);
    expect((await first).success).to.equal(false);
    expect(await second).to.deep.equal({ success: true, total: 1, items: [{ name: "Oslo Sofa" }] });
    expect(connector.lookups).to.deep.equal(["products"]);
  });
});
