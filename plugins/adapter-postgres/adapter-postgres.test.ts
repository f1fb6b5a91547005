import { expect } from "chai";
import pg from "pg";
import {
  CONFORMANCE_DATASET,
  conformanceCollection,
  describeAdapterConformance,
} from "../../core/host/testing/index.ts";
import { PluginHost } from "../../core/host/plugin-host.ts";
import { OutboundPolicy } from "../../core/security/outbound-policy.ts";
import { pino } from "pino";
import { checkSearch } from "../../core/search/check-search.ts";
import type { SqlAdapter } from "../../core/search/sql/sql-adapter.ts";
import {
  TEST_SECRET,
  createAdapter,
  describeSqlAdapterSuite,
  type SqlTestBackend,
} from "../../test/helpers/sql-adapter-suite.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "../../test/helpers/test-databases.ts";
import postgresPlugin from "./index.ts";

const target = databaseTargets.find((t) => t.client === "postgres");
if (target === undefined) throw new Error("no PostgreSQL test target");

const never = () => new AbortController().signal;

/** products as the conformance kit wants it, a NUMERIC/BIGINT copy in schema shop, and views. */
async function seed(admin: pg.Pool): Promise<void> {
  const columns = (id: string, price: string) =>
    `(id ${id} PRIMARY KEY, name text NOT NULL, description text NOT NULL,` +
    ` category varchar(40) NOT NULL, color varchar(40) NOT NULL, price ${price} NOT NULL,` +
    ` in_stock boolean NOT NULL, released_on date NOT NULL)`;
  await admin.query(`CREATE TABLE products ${columns("integer", "integer")}`);
  for (const p of CONFORMANCE_DATASET) {
    await admin.query("INSERT INTO products VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", [
      p.id,
      p.name,
      p.description,
      p.category,
      p.color,
      p.price,
      p.in_stock,
      p.released_on,
    ]);
  }
  await admin.query("CREATE SCHEMA shop");
  await admin.query(`CREATE TABLE shop.products ${columns("bigint", "numeric(10, 2)")}`);
  await admin.query("INSERT INTO shop.products SELECT * FROM products");
  await admin.query("CREATE VIEW products_view AS SELECT * FROM products");
  for (const [name, seconds] of [
    ["products_sleep_12", 12],
    ["products_sleep_2", 2],
  ] as const) {
    await admin.query(
      `CREATE VIEW ${name} AS SELECT p.* FROM products p CROSS JOIN (SELECT pg_sleep(${seconds})) AS s`,
    );
  }
  await admin.query(
    "CREATE TABLE typed_values (big bigint, huge bigint, amount numeric(12, 3), day date," +
      " at timestamp, at_tz timestamptz, doc jsonb, tags text[], counts bigint[], days date[]," +
      " starts time, nothing text)",
  );
  await admin.query(
    "INSERT INTO typed_values VALUES (42, 9007199254740993, 1234.5, '2024-02-29'," +
      " '2024-02-29 13:45:06.5', '2024-02-29 13:45:06+02', '{\"a\": [1, 2]}', '{x,y}'," +
      " '{1,2}', '{2024-01-01,2024-12-31}', '08:30', NULL)",
  );
}

describe("adapter-postgres (PostgreSQL)", function () {
  let db: TestDatabase | undefined;
  let admin: pg.Pool | undefined;
  const url = () => {
    if (db === undefined) throw new Error("the test database is not there");
    return db.url;
  };
  const run = async (sql: string, params: unknown[] = []) => {
    if (admin === undefined) throw new Error("the test database is not there");
    return (await admin.query<Record<string, unknown>>(sql, params)).rows;
  };
  /** The test server's URL with a password, at another port or for another user. */
  const variant = (change: (url: URL) => void) => {
    const changed = new URL(target.adminUrl as string);
    changed.password = TEST_SECRET;
    change(changed);
    return changed.toString();
  };

  before(async function () {
    db = await createTestDatabase(target);
    if (db === undefined) missing(this, "PostgreSQL");
    admin = new pg.Pool({ connectionString: db.url, max: 2 });
    admin.on("error", () => undefined); // an idle admin connection ended by the server
    await seed(admin);
  });
  after(async () => {
    await admin?.end();
    await db?.drop();
  });

  const backend: SqlTestBackend = {
    plugin: postgresPlugin,
    url,
    admin: run,
    running: async (text) => {
      const rows = await run(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()" +
          " AND state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%' || $1 || '%'",
        [text],
      );
      return rows.map((row) => Number(row.pid));
    },
    connected: async (id) =>
      (await run("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [id])).length > 0,
    terminate: async (id) => {
      await run("SELECT pg_terminate_backend($1)", [id]);
    },
    connectionIdSql: "SELECT pg_backend_pid() AS id",
    sleeping: { long: "products_sleep_12", short: "products_sleep_2" },
    closedPortUrl: variant((u) => (u.port = "1")),
    unknownUserUrl: variant((u) => (u.username = "sv_nobody")),
  };

  describeSqlAdapterSuite(backend);

  describe("schemas, views and types", () => {
    let adapter: SqlAdapter;
    let inShop: SqlAdapter;
    before(async () => {
      adapter = await createAdapter(postgresPlugin, { connectionString: url() });
      inShop = await createAdapter(postgresPlugin, { connectionString: url(), schema: "shop" });
    });
    after(async () => {
      await adapter?.close();
      await inShop?.close();
    });

    describeAdapterConformance("schema-qualified NUMERIC/BIGINT table shop.products", async () => ({
      adapter,
      collection: conformanceCollection("shop.products"),
      failing: { adapter, collection: conformanceCollection("no_such_table") },
    }));

    describeAdapterConformance("config.schema shop, source products", async () => ({
      adapter: inShop,
      collection: conformanceCollection("products"),
      failing: { adapter: inShop, collection: conformanceCollection("public.no_such_table") },
    }));

    describeAdapterConformance("a view", async () => ({
      adapter,
      collection: conformanceCollection("products_view"),
      failing: { adapter, collection: conformanceCollection("no_such_view") },
    }));

    it("returns NUMERIC and BIGINT as numbers, booleans as booleans, DATE as YYYY-MM-DD", async () => {
      const collection = conformanceCollection("shop.products");
      const query = {
        ...checkSearch(collection, { collection: "products", sort_by: "price", limit: 1 }),
        fields: ["id", "price", "in_stock", "released_on"],
      };
      const result = await adapter.search(collection, query, { signal: never() });
      expect(result).to.deep.equal({
        success: true,
        total: 12,
        items: [{ id: 10, price: 79, in_stock: true, released_on: "2024-05-18" }],
      });
    });

    it("orders a keyless view with json and point columns (no ordering operator) by their text", async () => {
      await admin!.query(
        "CREATE VIEW unordered_view AS" +
          " SELECT big, doc::json AS doc, point(1, 2) AS spot FROM typed_values",
      );
      const collection = {
        name: "unordered",
        source: "unordered_view",
        searchable_fields: [],
        filterable_fields: [],
        display_fields: ["big", "doc", "spot"],
      };
      const query = checkSearch(collection, { collection: "unordered" });
      const result = await adapter.search(collection, query, { signal: never() });
      expect(result).to.deep.include({ success: true, total: 1 });
    });

    it("converts timestamps, JSON, arrays and big numbers", async () => {
      const [row] = await adapter.query("SELECT * FROM typed_values", [], { signal: never() });
      expect(row).to.deep.equal({
        big: 42,
        huge: "9007199254740993", // beyond 2^53: kept exact, as a string
        amount: 1234.5,
        day: "2024-02-29",
        at: "2024-02-29T13:45:06.5",
        at_tz: "2024-02-29T11:45:06.000Z",
        doc: { a: [1, 2] },
        tags: ["x", "y"],
        counts: [1, 2],
        days: ["2024-01-01", "2024-12-31"],
        starts: "08:30:00",
        nothing: null,
      });
    });

    it("introspects the collection's fields only, with catalog types and samples", async () => {
      const collection = {
        ...conformanceCollection("typed_values"),
        searchable_fields: [],
        filterable_fields: ["big", "amount", "day", "at_tz", "doc", "tags", "starts"],
        display_fields: ["nothing", "missing_column"],
      };
      const found = await adapter.introspect(collection, { signal: never() });
      expect(found).to.deep.equal({
        name: "products",
        source: "typed_values",
        recordCount: 1,
        fields: [
          { name: "big", type: "number", sample: 42 },
          { name: "amount", type: "number", sample: 1234.5 },
          { name: "day", type: "date", sample: "2024-02-29" },
          { name: "at_tz", type: "date", sample: "2024-02-29T11:45:06.000Z" },
          { name: "doc", type: "object", sample: { a: [1, 2] } },
          { name: "tags", type: "array", sample: ["x", "y"] },
          { name: "starts", type: "string", sample: "08:30:00" },
          { name: "nothing", type: "string" },
          { name: "missing_column", type: "unknown" },
        ],
      });
      let failure: unknown;
      try {
        await adapter.introspect(conformanceCollection("no_such_table"), { signal: never() });
      } catch (error) {
        failure = error;
      }
      expect((failure as Error).message).to.match(/no_such_table was not found/);
    });

    for (const parameter of ["sslcert=/etc/passwd", "host=/var/run/postgresql", "password=x"]) {
      it(`refuses the URL parameter ${parameter} before pg sees it, without the password`, async () => {
        let failure: unknown;
        try {
          await createAdapter(postgresPlugin, {
            connectionString: `postgres://postgres:${TEST_SECRET}@127.0.0.1/x?${parameter}`,
          });
        } catch (error) {
          failure = error;
        }
        const name = parameter.split("=")[0];
        expect((failure as Error).message).to.include(
          `connection string parameter "${name}" is not supported (supported: none)`,
        );
        expect((failure as Error).message).to.not.include(TEST_SECRET);
      });
    }

    describe("checks its config with the site schema's rules", () => {
      const validateConfig = (config: unknown) => {
        const host = new PluginHost({
          logger: pino({ level: "silent" }),
          outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
        });
        host.register(postgresPlugin, "builtin:adapter-postgres");
        return host.validateConfig("adapter", "postgres", config);
      };

      it("accepts a postgres:// connection string with a schema", () => {
        const ok = { connectionString: "postgres://reader:secret@db:5432/shop", schema: "shop" };
        expect(validateConfig(ok)).to.deep.equal([]);
      });

      for (const bad of [
        { connectionString: "mysql://x@y/z" },
        { connectionString: "postgres://x@y/z", schema: "shop; DROP" },
        { connectionString: "postgres://x@y/z", extra: 1 },
        { connectionString: "postgres://x@y/z?sslcert=/etc/ssl/certs/host.pem" },
        { connectionString: "postgres://x@y/z?password=in-the-query" },
        {},
      ]) {
        it(`refuses the config ${JSON.stringify(bad)}`, () => {
          expect(validateConfig(bad), JSON.stringify(bad)).to.have.length.above(0);
        });
      }
    });
  });
});
