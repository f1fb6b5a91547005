/**
 * The tests every SQL adapter must pass against a real server, beyond the conformance cases:
 * injection in every value and identifier position, the 10 s deadline enforced on the server,
 * no leaked connection after many cancels or killed connections, the old pool closed on a config
 * change, read-only statements, no secret in any message, and ties of a sort in key order (or in
 * the order of the returned fields, for a view). The PostgreSQL and MySQL test files
 * each describe their server with a SqlTestBackend and call describeSqlAdapterSuite inside a
 * suite whose `before` has created and seeded the database (see `seedStatements`).
 *
 * Waiting on the server is always by polling a condition, never by sleeping a fixed time.
 */
import { expect } from "chai";
import { answeredAs } from "./answered-as.ts";
import { pino } from "pino";
import { isServiceError } from "../../core/errors.ts";
import { httpStatus } from "../../core/http/error-status.ts";
import type { PluginContext, PluginDefinition } from "../../core/host/plugin.ts";
import { PluginHost } from "../../core/host/plugin-host.ts";
import {
  conformanceCollection,
  describeAdapterConformance,
  CONFORMANCE_DATASET,
} from "../../core/host/testing/index.ts";
import { checkSearch } from "../../core/search/check-search.ts";
import { runSearch } from "../../core/search/run-search.ts";
import type {
  AdapterQuery,
  CollectionSpec,
  Filter,
  SearchParams,
} from "../../core/search/search-types.ts";
import { SqlAdapterError } from "../../core/search/sql/errors.ts";
import type { SqlAdapter } from "../../core/search/sql/sql-adapter.ts";
import { pluginNetwork } from "../../core/host/plugin-network.ts";
import { OutboundPolicy } from "../../core/security/outbound-policy.ts";

/** The password in every connection string the secrets tests use. */
export const TEST_SECRET = "Sup3r-S3cret_pw";

/** A server as the suite needs it; every function is called only once `before` has run. */
export interface SqlTestBackend {
  /** The adapter plugin under test. */
  plugin: PluginDefinition<"adapter", { connectionString: string; ssl?: boolean }>;
  /** The test database's connection string. */
  url(): string;
  /** Runs SQL on the test database outside the adapter (it may write). */
  admin(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** The server ids of the connections (other than the admin's) running SQL containing `text`. */
  running(text: string): Promise<number[]>;
  /** Whether the server connection `id` still exists. */
  connected(id: number): Promise<boolean>;
  /** Ends server connection `id` from outside, as a DBA or a failover would. */
  terminate(id: number): Promise<void>;
  /** A SELECT giving the server id of its own connection as column `id`. */
  connectionIdSql: string;
  /** Views over `products` that sleep 12 s and 2 s before answering. */
  sleeping: { long: string; short: string };
  /** A connection string with TEST_SECRET as password, at a port where nothing listens. */
  closedPortUrl: string;
  /** A connection string with TEST_SECRET as password, for a user the server does not know. */
  unknownUserUrl: string;
}

const logger = pino({ level: "silent" });
/**
 * The test servers are on 127.0.0.1, which the default policy refuses: these suites allow
 * private networks, and test/outbound-policy.test.ts checks the default.
 */
const policy = new OutboundPolicy({ allowPrivateNetworks: true });
const network = pluginNetwork(policy);
const context: PluginContext = {
  logger,
  fetch: network.fetch,
  request: network.request,
  socket: network.socket,
  now: Date.now,
  scope: "test-site",
  deadlineMs: 10_000,
};
const never = () => new AbortController().signal;

export async function createAdapter(
  plugin: SqlTestBackend["plugin"],
  config: { connectionString: string; ssl?: boolean; schema?: string },
  overrides: Partial<PluginContext> = {},
): Promise<SqlAdapter> {
  return (await plugin.create(config, { ...context, ...overrides })) as unknown as SqlAdapter;
}

/** Polls `check` until it holds; fails naming `what` if it never does. */
export async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status: number }> {
  try {
    await promise;
  } catch (error) {
    if (isServiceError(error)) return { code: error.code, status: httpStatus(error) };
    throw error;
  }
  return expect.fail("expected the search to be refused");
}

const checked = (collection: CollectionSpec, params: Omit<SearchParams, "collection">) =>
  checkSearch(collection, { collection: collection.name, ...params });

/** A row of the ties table: many share a rating. */
interface RatedProduct {
  sku: number;
  name: string;
  rating: number;
}

/**
 * 40 products rated 1 to 3, in insertion order. `sku`, the primary key, and `name` are two
 * unrelated permutations of that order (41 is prime), so the order rows were written in, key
 * order and name order all differ, and a tie left to the database's plan shows.
 */
const RATED_PRODUCTS: readonly RatedProduct[] = Array.from({ length: 40 }, (_, index) => ({
  sku: ((index + 1) * 17) % 41,
  name: `p${String(((index + 1) * 23) % 41).padStart(2, "0")}`,
  rating: 1 + ((index + 1) % 3),
}));

/** A row of the composite-key table: the key is (size, product), the columns' reverse order. */
interface RatedVariant {
  product: number;
  size: string;
  rating: number;
}

const SIZES = ["L", "M", "S", "XL"];

/** Six products in four sizes, rated 1 or 2, inserted in a shuffled order (7 and 24 are coprime). */
const RATED_VARIANTS: readonly RatedVariant[] = Array.from({ length: 24 }, (_, index) => {
  const slot = (index * 7) % 24;
  const product = 1 + Math.floor(slot / SIZES.length);
  const sizeIndex = slot % SIZES.length;
  return { product, size: SIZES[sizeIndex] as string, rating: 1 + ((product + sizeIndex) % 2) };
});

/** The ties tables, a keyless view over one, and an index that scans in name order. */
const TIES_SCHEMA = [
  "CREATE TABLE rated_products (name varchar(40) NOT NULL, rating integer NOT NULL," +
    " sku integer NOT NULL, PRIMARY KEY (sku))",
  // A covering index in name order: MariaDB reads an unsorted search from it, not in key order.
  "CREATE INDEX rated_products_by_name ON rated_products (name, rating)",
  "INSERT INTO rated_products (name, rating, sku) VALUES " +
    RATED_PRODUCTS.map((p) => `('${p.name}', ${p.rating}, ${p.sku})`).join(", "),
  "CREATE VIEW rated_products_view AS SELECT name, rating FROM rated_products",
  "CREATE TABLE rated_variants (product integer NOT NULL, size varchar(8) NOT NULL," +
    " rating integer NOT NULL, PRIMARY KEY (size, product))",
  "INSERT INTO rated_variants (product, size, rating) VALUES " +
    RATED_VARIANTS.map((v) => `(${v.product}, '${v.size}', ${v.rating})`).join(", "),
];

/** A collection over the ties tables, returning `fields`. */
const tiesCollection = (source: string, fields: string[]): CollectionSpec => ({
  name: "rated",
  source,
  searchable_fields: [],
  filterable_fields: ["rating"],
  display_fields: fields,
});

/** Orders by each comparison in turn, the first that tells two rows apart wins. */
const by =
  <T>(...comparisons: ((a: T, b: T) => number)[]) =>
  (a: T, b: T): number => {
    for (const compare of comparisons) {
      const order = compare(a, b);
      if (order !== 0) return order;
    }
    return 0;
  };

const ascending =
  <T>(value: (row: T) => number | string) =>
  (a: T, b: T): number => {
    const x = value(a);
    const y = value(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };

const descending =
  <T>(value: (row: T) => number | string) =>
  (a: T, b: T): number =>
    ascending(value)(b, a);

/** The first `limit` rows in `order`, with only `fields`, as the adapter should return them. */
function expectedItems<T extends object>(
  rows: readonly T[],
  order: (a: T, b: T) => number,
  fields: (keyof T)[],
  limit: number,
): Record<string, unknown>[] {
  return [...rows]
    .sort(order)
    .slice(0, limit)
    .map((row) => Object.fromEntries(fields.map((field) => [field, row[field]])));
}

/**
 * Declares the suite in its own `describe`, so that its adapters are closed (its `after`) before
 * the enclosing suite's `after` drops the database.
 */
export function describeSqlAdapterSuite(backend: SqlTestBackend): void {
  describe("SQL adapter robustness", () => suite(backend));
}

function suite(backend: SqlTestBackend): void {
  const products = conformanceCollection("products");
  let adapter: SqlAdapter;
  let failing: SqlAdapter;
  const rowCount = async () => {
    const [row] = await backend.admin("SELECT COUNT(*) AS n FROM products");
    return Number(row?.n);
  };

  before(async () => {
    adapter = await createAdapter(backend.plugin, { connectionString: backend.url() });
    failing = await createAdapter(backend.plugin, { connectionString: backend.closedPortUrl });
  });
  after(async () => {
    await adapter?.close();
    await failing?.close();
  });

  describeAdapterConformance("products table", async () => ({
    adapter,
    collection: products,
    failing: { adapter: failing, collection: products },
  }));

  describe("values are bound, never SQL", () => {
    /** Attempts whose value matches no row when taken as data are marked `none`. */
    const attempts: { params: Omit<SearchParams, "collection">; none: boolean }[] = [
      { params: { query: "'; DROP TABLE products; --" }, none: true },
      { params: { query: "%' OR 1=1 --" }, none: true },
      { params: { query: "\\'; DELETE FROM products; --" }, none: true },
      ...(
        [
          [{ field: "name", operator: "eq", value: "x' OR '1'='1" }, true],
          [{ field: "name", operator: "neq", value: "'; DROP TABLE products; --" }, false],
          [{ field: "category", operator: "contains", value: "%'; DROP TABLE products; --" }, true],
          [{ field: "color", operator: "in", value: ["x'); DROP TABLE products; --"] }, true],
          [{ field: "price", operator: "gt", value: "0; DROP TABLE products" }, false],
          [
            { field: "released_on", operator: "gte", value: "2024-01-01'; DROP TABLE x; --" },
            false,
          ],
          [{ field: "in_stock", operator: "eq", value: "true; DELETE FROM products" }, false],
        ] as [Filter, boolean][]
      ).map(([filter, none]) => ({ params: { filters: [filter] }, none })),
    ];

    describe("answers injection attempts in every value position with data or an error", () => {
      for (const { params, none } of attempts) {
        const label = JSON.stringify(params);
        it(`answers ${label} with ${none ? "no rows" : "rows of the table"} or an error, and drops nothing`, async () => {
          try {
            const result = await runSearch(adapter, products, checked(products, params));
            if (none) expect(result.total, label).to.equal(0);
            // Whatever matched is rows of the table, never rows an injected OR let through.
            const ids = CONFORMANCE_DATASET.map((p) => p.id);
            expect(
              result.items.map((item) => Number(item.id)).filter((id) => !ids.includes(id)),
              label,
            ).to.deep.equal([]);
          } catch (error) {
            // A value the column's type cannot take fails as data: 422, the statement never ran.
            if (!isServiceError(error)) throw error;
            expect(error.code, label).to.equal("adapter_error");
          }
          expect(await rowCount()).to.equal(CONFORMANCE_DATASET.length);
        });
      }
    });

    describe("refuses an unlisted field anywhere before the adapter is called (422)", () => {
      const unlisted: Omit<SearchParams, "collection">[] = [
        { filters: [{ field: "price; DROP TABLE products", operator: "eq", value: 1 }] },
        { filters: [{ field: 'name" OR 1=1 --', operator: "contains", value: "a" }] },
        { sort_by: 'name"; DROP TABLE products; --' },
        { sort_by: "id`; DROP TABLE products; --" },
        { filters: [{ field: "password", operator: "eq", value: "x" }] },
      ];
      for (const params of unlisted) {
        it(`refuses ${JSON.stringify(params)} (422)`, () => {
          let refused: unknown;
          try {
            checked(products, params);
          } catch (error) {
            refused = error;
          }
          expect(isServiceError(refused), JSON.stringify(params)).to.equal(true);
          expect(answeredAs(refused)).to.deep.equal({ code: "validation_failed", status: 422 });
        });
      }
    });

    describe("quotes a malicious identifier that got past the checks into an unknown column", () => {
      const evil = [
        'name"; DROP TABLE products; --',
        "name`; DROP TABLE products; --",
        "price) OR 1=1 --",
      ];
      const positions: [string, (base: AdapterQuery, field: string) => AdapterQuery][] = [
        [
          "an eq filter",
          (base, field) => ({ ...base, filters: [{ field, operator: "eq", value: "x" }] }),
        ],
        [
          "a contains filter",
          (base, field) => ({ ...base, filters: [{ field, operator: "contains", value: "x" }] }),
        ],
        ["the sort", (base, field) => ({ ...base, sort: { field, direction: "desc" } })],
        ["the returned fields", (base, field) => ({ ...base, fields: [...base.fields, field] })],
        [
          "the search fields",
          (base, field) => ({ ...base, text: "sofa", searchFields: ["name", field] }),
        ],
      ];
      for (const field of evil) {
        for (const [position, make] of positions) {
          it(`quotes ${field} in ${position}: an unknown column, nothing dropped`, async () => {
            const query = make(checked(products, {}), field);
            const result = await adapter.search(products, query, { signal: never() });
            expect(result.success, `${field} in ${JSON.stringify(query)}`).to.equal(false);
            if (!result.success) expect(result.error).to.match(/column/i);
            expect(await rowCount()).to.equal(CONFORMANCE_DATASET.length);
          });
        }
      }

      for (const source of ["products; DROP TABLE products", "a.b.products", "products --"]) {
        it(`fails a search on the source ${source}, dropping nothing`, async () => {
          const base = checked(products, {});
          const result = await adapter.search({ ...products, source }, base, { signal: never() });
          expect(result).to.deep.include({ success: false });
          expect(await rowCount()).to.equal(CONFORMANCE_DATASET.length);
        });
      }
    });

    it("runs every statement in a read-only transaction", async () => {
      let failure: unknown;
      try {
        await adapter.query(
          "INSERT INTO products (id, name, description, category, color, price, in_stock," +
            " released_on) VALUES (99, 'x', 'x', 'x', 'x', 1, TRUE, '2024-01-01')",
          [],
          { signal: never() },
        );
      } catch (error) {
        failure = error;
      }
      expect(failure).to.be.instanceOf(SqlAdapterError);
      // The server's reason stays out of the message, but the error keeps its code: SQLSTATE
      // 25006 (PostgreSQL), ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION (MySQL, MariaDB).
      expect((failure as SqlAdapterError).message).to.equal("the query failed");
      expect((failure as SqlAdapterError).code).to.be.oneOf([
        "25006",
        "ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION",
      ]);
      expect(await rowCount()).to.equal(CONFORMANCE_DATASET.length);
    });
  });

  describe("deadline and cancel", () => {
    const { long, short } = backend.sleeping;

    it("answers a 12 s query with 504 adapter_timeout in under 10.5 s, and stops it on the server", async function () {
      this.timeout(30_000);
      const collection = conformanceCollection(long);
      const started = Date.now();
      const pending = refusal(runSearch(adapter, collection, checked(collection, {})));
      await waitFor("the query runs on the server", async () => {
        return (await backend.running(long)).length === 1;
      });
      const error = await pending;
      const elapsed = Date.now() - started;
      expect(error).to.deep.equal({ code: "adapter_timeout", status: 504 });
      expect(elapsed).to.be.below(10_500);
      await waitFor("the server no longer runs the query", async () => {
        return (await backend.running(long)).length === 0;
      });
    });

    it("leaks no connection over 50 cancelled searches, and the pool still serves", async function () {
      this.timeout(60_000);
      const collection = conformanceCollection(short);
      const query = checked(collection, {});
      for (let batch = 0; batch < 5; batch++) {
        // Twice the pool's size at once: half run and are cancelled, half are cancelled waiting.
        const errors = await Promise.all(
          Array.from({ length: 10 }, () =>
            refusal(runSearch(adapter, collection, query, { timeoutMs: 200 })),
          ),
        );
        expect(errors.map((error) => error.code)).to.deep.equal(
          errors.map(() => "adapter_timeout"),
        );
      }
      await waitFor("no cancelled query is left on the server", async () => {
        return (await backend.running(short)).length === 0;
      });
      await waitFor("the pool has let go of every cancelled connection", async () => {
        const stats = adapter.poolStats();
        return stats.waiting === 0 && stats.total <= 5;
      });
      const stats = adapter.poolStats();
      expect(stats.idle).to.be.at.most(stats.total);
      const result = await runSearch(adapter, products, checked(products, {}));
      expect(result.total).to.equal(CONFORMANCE_DATASET.length);
    });

    it("reports a connection killed mid-query as 422 adapter_error, 50 times, and stays healthy", async function () {
      this.timeout(60_000);
      const collection = conformanceCollection(long);
      const query = checked(collection, {});
      for (let round = 0; round < 50; round++) {
        // A killed connection can linger a moment in the server's list: wait it out, so that
        // this round kills its own query and not the last round's.
        await waitFor("the last round's query is gone", async () => {
          return (await backend.running(long)).length === 0;
        });
        const pending = refusal(runSearch(adapter, collection, query));
        let ids: number[] = [];
        await waitFor("the query runs on the server", async () => {
          ids = await backend.running(long);
          return ids.length > 0;
        });
        for (const id of ids) await backend.terminate(id);
        const error = await pending;
        expect(error, `round ${round}`).to.deep.equal({
          code: "adapter_error",
          status: 422,
        });
      }
      const stats = adapter.poolStats();
      expect(stats.waiting).to.equal(0);
      expect(stats.total).to.be.at.most(5);
      const result = await runSearch(adapter, products, checked(products, { limit: 3 }));
      expect(result.total).to.equal(CONFORMANCE_DATASET.length);
      expect(await backend.running(long)).to.deep.equal([]);
    });

    it("close() stops a query in flight and ends the pool", async function () {
      this.timeout(30_000);
      const closing = await createAdapter(backend.plugin, { connectionString: backend.url() });
      const collection = conformanceCollection(long);
      const pending = closing.search(collection, checked(collection, {}), { signal: never() });
      await waitFor("the query runs on the server", async () => {
        return (await backend.running(long)).length === 1;
      });
      await closing.close();
      const result = await pending;
      expect(result.success).to.equal(false);
      if (!result.success) expect(result.error).to.match(/closed/);
      expect(closing.poolStats()).to.include({ closed: true, total: 0 });
      await waitFor("the server no longer runs the query", async () => {
        return (await backend.running(long)).length === 0;
      });
      const after = await closing.search(products, checked(products, {}), { signal: never() });
      expect(after).to.deep.include({ success: false });
    });
  });

  describe("ties in a stable order", () => {
    const ratedProducts = tiesCollection("rated_products", ["name", "rating"]);
    const view = tiesCollection("rated_products_view", ["name", "rating"]);
    const variants = tiesCollection("rated_variants", ["product", "size", "rating"]);
    const sku = ascending((p: RatedProduct) => p.sku);

    before(async () => {
      for (const sql of TIES_SCHEMA) await backend.admin(sql);
    });

    /** The items of a search, or a failure naming the adapter's error. */
    async function items(
      collection: CollectionSpec,
      params: Omit<SearchParams, "collection">,
    ): Promise<Record<string, unknown>[]> {
      const query = checked(collection, params);
      const result = await adapter.search(collection, query, { signal: never() });
      if (!result.success) return expect.fail(result.error);
      return result.items;
    }

    it("sorted by rating ascending with limit 7: ties in key order, the same on every call", async () => {
      const rating = ascending((p: RatedProduct) => p.rating);
      const expected = expectedItems(RATED_PRODUCTS, by(rating, sku), ["name", "rating"], 7);
      const params = { sort_by: "rating", sort_direction: "asc" as const, limit: 7 };
      const calls = [];
      for (let call = 0; call < 3; call++) calls.push(await items(ratedProducts, params));
      // All three calls compared at once.
      expect(calls, "three calls").to.deep.equal([expected, expected, expected]);
    });

    it("sorted by rating descending with limit 7: ties in key order, the same on every call", async () => {
      const rating = descending((p: RatedProduct) => p.rating);
      const expected = expectedItems(RATED_PRODUCTS, by(rating, sku), ["name", "rating"], 7);
      const params = { sort_by: "rating", sort_direction: "desc" as const, limit: 7 };
      const calls = [];
      for (let call = 0; call < 3; call++) calls.push(await items(ratedProducts, params));
      // All three calls compared at once.
      expect(calls, "three calls").to.deep.equal([expected, expected, expected]);
    });

    it("orders ties by the key of a schema-qualified source", async () => {
      // The schema (a database, on MySQL) the test tables were made in.
      const [row] = await backend.admin(
        "SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'rated_products'",
      );
      const qualified = tiesCollection(`${String(row?.s)}.rated_products`, ["name", "rating"]);
      const rating = ascending((p: RatedProduct) => p.rating);
      const expected = expectedItems(RATED_PRODUCTS, by(rating, sku), ["name", "rating"], 7);
      expect(await items(qualified, { sort_by: "rating", limit: 7 })).to.deep.equal(expected);
    });

    it("orders ties by every column of a composite key, in key order", async () => {
      const order = by(
        ascending((v: RatedVariant) => v.rating),
        ascending((v) => v.size),
        ascending((v) => v.product),
      );
      const expected = expectedItems(RATED_VARIANTS, order, ["product", "size", "rating"], 7);
      expect(await items(variants, { sort_by: "rating", limit: 7 })).to.deep.equal(expected);
    });

    it("orders ties on a view without a key by the returned fields, in their order", async () => {
      const order = by(
        ascending((p: RatedProduct) => p.rating),
        ascending((p) => p.name),
      );
      const expected = expectedItems(RATED_PRODUCTS, order, ["name", "rating"], 7);
      expect(await items(view, { sort_by: "rating", limit: 7 })).to.deep.equal(expected);
    });

    it("orders a search without sort_by by the key", async () => {
      const expected = expectedItems(RATED_PRODUCTS, sku, ["name", "rating"], 7);
      expect(await items(ratedProducts, { limit: 7 })).to.deep.equal(expected);
    });
  });

  describe("lifecycle", () => {
    it("closes the old pool when the site's config changes", async () => {
      const host = new PluginHost({ logger, outbound: policy });
      host.register(backend.plugin, `builtin:${backend.plugin.name}`);
      host.start();
      const type = backend.plugin.type as string;
      try {
        const config = { connectionString: backend.url() };
        const first = (await host.instance("adapter", type, config, "site_a")) as SqlAdapter;
        const [row] = await first.query(backend.connectionIdSql, [], { signal: never() });
        const id = Number(row?.id);
        expect(await backend.connected(id)).to.equal(true);

        const changed = { ...config, ssl: false };
        const second = (await host.instance("adapter", type, changed, "site_a")) as SqlAdapter;
        expect(second).to.not.equal(first);
        expect(first.poolStats().closed).to.equal(true);
        await waitFor("the old pool's connection is gone from the server", async () => {
          return !(await backend.connected(id));
        });
        const result = await runSearch(second, products, checked(products, { limit: 1 }));
        expect(result.total).to.equal(CONFORMANCE_DATASET.length);
      } finally {
        await host.close();
      }
    });

    it("answers test() through the pool", async () => {
      await adapter.test({ signal: never() });
    });

    it("rejects test() for a server that is not there", async () => {
      let failure: unknown;
      try {
        await failing.test({ signal: never() });
      } catch (error) {
        failure = error;
      }
      expect(failure).to.be.instanceOf(Error);
    });
  });

  describe("error messages", () => {
    const missingParts: [string, (query: AdapterQuery) => [CollectionSpec, AdapterQuery]][] = [
      ["table", (query) => [{ ...products, source: "no_such_table" }, query]],
      ["column", (query) => [products, { ...query, fields: [...query.fields, "no_such_column"] }]],
    ];
    for (const [what, make] of missingParts) {
      it(`says a ${what} of the collection does not exist, not the server's words`, async () => {
        const [collection, query] = make(checked(products, {}));
        const result = await adapter.search(collection, query, { signal: never() });
        expect(result).to.deep.equal({
          success: false,
          error: "a table or column of the collection does not exist",
        });
      });
    }

    const connectionFailures: [string, () => string][] = [
      ["a closed port", () => backend.closedPortUrl],
      ["an unknown user", () => backend.unknownUserUrl],
      [
        "an unknown database",
        () => {
          const unknownDatabase = new URL(backend.url());
          unknownDatabase.pathname = "/sv_no_such_database";
          return unknownDatabase.toString();
        },
      ],
    ];
    for (const [what, url] of connectionFailures) {
      it(`gives ${what} the one connection-failure message, without reason, host or port`, async () => {
        const connectionString = url();
        const subject = await createAdapter(backend.plugin, { connectionString });
        try {
          const result = await subject.search(products, checked(products, {}), {
            signal: never(),
          });
          expect(result, connectionString).to.deep.equal({
            success: false,
            error: "could not connect to the database",
          });
        } finally {
          await subject.close();
        }
      });
    }

    it("logs the reason of a connection failure, with the password masked", async () => {
      const lines: string[] = [];
      const capture = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
      const subject = await createAdapter(
        backend.plugin,
        { connectionString: backend.unknownUserUrl },
        { logger: capture },
      );
      try {
        await subject.search(products, checked(products, {}), { signal: never() });
      } finally {
        await subject.close();
      }
      const logged = lines.join("\n");
      expect(logged).to.match(/could not connect to/);
      expect(logged).to.include("sv_nobody");
      expect(logged).not.to.include(TEST_SECRET);
    });
  });

  describe("secrets", () => {
    for (const [what, url] of [
      ["a closed port", () => backend.closedPortUrl],
      ["an unknown user", () => backend.unknownUserUrl],
    ] as const) {
      it(`never puts the password or the connection string in an error (${what})`, async () => {
        const connectionString = url();
        const subject = await createAdapter(backend.plugin, { connectionString });
        try {
          const messages: string[] = [];
          const result = await subject.search(products, checked(products, {}), {
            signal: never(),
          });
          expect(result.success, connectionString).to.equal(false);
          if (!result.success) messages.push(result.error);
          for (const call of [
            () => subject.test({ signal: never() }),
            () => subject.introspect(products, { signal: never() }),
          ]) {
            try {
              await call();
              expect.fail(`${connectionString} should fail`);
            } catch (error) {
              messages.push((error as Error).message);
            }
          }
          // Every message checked before failing.
          expect(messages.filter((message) => message.includes(TEST_SECRET))).to.deep.equal([]);
          expect(messages.filter((message) => message.includes(connectionString))).to.deep.equal(
            [],
          );
          expect(messages.filter((message) => message.length === 0)).to.deep.equal([]);
        } finally {
          await subject.close();
        }
      });
    }
  });
}
