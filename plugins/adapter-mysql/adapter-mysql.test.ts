import { expect } from "chai";
import mysql from "mysql2/promise";
import { pino } from "pino";
import {
  CONFORMANCE_DATASET,
  conformanceCollection,
  describeAdapterConformance,
} from "../../core/host/testing/index.ts";
import { PluginHost } from "../../core/host/plugin-host.ts";
import { OutboundPolicy } from "../../core/security/outbound-policy.ts";
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
import mysqlPlugin from "./index.ts";

const target = databaseTargets.find((t) => t.client === "mysql");
if (target === undefined) throw new Error("no MySQL test target");

const never = () => new AbortController().signal;

/** products as the conformance kit wants it, a DECIMAL/BIGINT copy, and views. */
async function seed(admin: mysql.Pool): Promise<void> {
  const columns = (id: string, price: string) =>
    `(id ${id} PRIMARY KEY, name varchar(100) NOT NULL, description text NOT NULL,` +
    ` category varchar(40) NOT NULL, color varchar(40) NOT NULL, price ${price} NOT NULL,` +
    ` in_stock boolean NOT NULL, released_on date NOT NULL)`;
  await admin.query(`CREATE TABLE products ${columns("integer", "integer")}`);
  for (const p of CONFORMANCE_DATASET) {
    await admin.query("INSERT INTO products VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
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
  await admin.query(`CREATE TABLE products_decimal ${columns("bigint", "decimal(10, 2)")}`);
  await admin.query("INSERT INTO products_decimal SELECT * FROM products");
  await admin.query("CREATE VIEW products_view AS SELECT * FROM products");
  for (const [name, seconds] of [
    ["products_sleep_12", 12],
    ["products_sleep_2", 2],
  ] as const) {
    await admin.query(
      `CREATE VIEW ${name} AS SELECT p.* FROM products p CROSS JOIN (SELECT SLEEP(${seconds}) AS s) AS z`,
    );
  }
  await admin.query(
    "CREATE TABLE typed_values (big bigint, huge bigint, amount decimal(12, 3), day date," +
      " at datetime(1), at_ts timestamp NULL, doc json, starts time, flag tinyint(1)," +
      " small tinyint, nothing text)",
  );
  // The session is UTC, so the TIMESTAMP is stored and read back as written.
  await admin.query("SET time_zone = '+00:00'");
  await admin.query(
    "INSERT INTO typed_values VALUES (42, 9007199254740993, 1234.5, '2024-02-29'," +
      " '2024-02-29 13:45:06.5', '2024-02-29 11:45:06', '{\"a\": [1, 2]}', '08:30', 1, 7, NULL)",
  );
}

describe("adapter-mysql (MariaDB/MySQL)", function () {
  let db: TestDatabase | undefined;
  let admin: mysql.Pool | undefined;
  const url = () => {
    if (db === undefined) throw new Error("the test database is not there");
    return db.url;
  };
  const databaseName = () => new URL(url()).pathname.slice(1);
  const run = async (sql: string, params: unknown[] = []) => {
    if (admin === undefined) throw new Error("the test database is not there");
    const [rows] = await admin.query(sql, params);
    return rows as Record<string, unknown>[];
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
    if (db === undefined) missing(this, "MariaDB/MySQL");
    admin = mysql.createPool({ uri: db.url, connectionLimit: 2 });
    await seed(admin);
  });
  after(async () => {
    await admin?.end();
    await db?.drop();
  });

  const backend: SqlTestBackend = {
    plugin: mysqlPlugin,
    url,
    admin: run,
    running: async (text) => {
      const rows = await run(
        "SELECT ID AS id FROM information_schema.PROCESSLIST" +
          " WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND INFO LIKE ?",
        [`%${text}%`],
      );
      return rows.map((row) => Number(row.id));
    },
    connected: async (id) =>
      (await run("SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?", [id])).length > 0,
    terminate: async (id) => {
      await run(`KILL ${Number(id)}`);
    },
    connectionIdSql: "SELECT CONNECTION_ID() AS id",
    sleeping: { long: "products_sleep_12", short: "products_sleep_2" },
    closedPortUrl: variant((u) => (u.port = "1")),
    unknownUserUrl: variant((u) => (u.username = "sv_nobody")),
  };

  describeSqlAdapterSuite(backend);

  describe("schemas, views and types", () => {
    let adapter: SqlAdapter;
    before(async () => {
      adapter = await createAdapter(mysqlPlugin, { connectionString: url() });
    });
    after(async () => {
      await adapter?.close();
    });

    describeAdapterConformance("database-qualified DECIMAL/BIGINT table", async () => ({
      adapter,
      collection: conformanceCollection(`${databaseName()}.products_decimal`),
      failing: { adapter, collection: conformanceCollection("no_such_table") },
    }));

    describeAdapterConformance("a view", async () => ({
      adapter,
      collection: conformanceCollection("products_view"),
      failing: { adapter, collection: conformanceCollection("no_such_view") },
    }));

    it("returns DECIMAL and BIGINT as numbers, BOOLEAN as booleans, DATE as YYYY-MM-DD", async () => {
      const collection = conformanceCollection("products_decimal");
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

    it("converts DATETIME, TIMESTAMP, JSON and big numbers", async () => {
      const [row] = await adapter.query("SELECT * FROM typed_values", [], { signal: never() });
      expect(row).to.deep.equal({
        big: 42,
        huge: "9007199254740993", // beyond 2^53: kept exact, as a string
        amount: 1234.5,
        day: "2024-02-29",
        at: "2024-02-29T13:45:06.5",
        at_ts: "2024-02-29T11:45:06Z",
        doc: { a: [1, 2] },
        starts: "08:30:00",
        flag: true,
        small: 7,
        nothing: null,
      });
    });

    it("introspects the collection's fields only, with catalog types and samples", async () => {
      const collection = {
        ...conformanceCollection("typed_values"),
        searchable_fields: [],
        filterable_fields: ["big", "amount", "day", "at_ts", "doc", "flag", "starts"],
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
          { name: "at_ts", type: "date", sample: "2024-02-29T11:45:06Z" },
          { name: "doc", type: "object", sample: { a: [1, 2] } },
          { name: "flag", type: "boolean", sample: true },
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

    describe("checks its config with the site schema's rules, and refuses driver options in the URL", () => {
      const validateConfig = (config: unknown) => {
        const host = new PluginHost({
          logger: pino({ level: "silent" }),
          outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
        });
        host.register(mysqlPlugin, "builtin:adapter-mysql");
        return host.validateConfig("adapter", "mysql", config);
      };

      it("accepts a mysql:// connection string with ssl", () => {
        const ok = { connectionString: "mysql://reader:secret@db:3306/shop", ssl: true };
        expect(validateConfig(ok)).to.deep.equal([]);
      });

      for (const bad of [
        { connectionString: "postgres://x@y/z" },
        { connectionString: "mysql://x@y/z", schema: "shop" },
        {},
      ]) {
        it(`refuses the config ${JSON.stringify(bad)}`, () => {
          expect(validateConfig(bad), JSON.stringify(bad)).to.have.length.above(0);
        });
      }

      it("refuses driver options in the URL, without the password", async () => {
        let failure: unknown;
        try {
          await createAdapter(mysqlPlugin, {
            connectionString: `mysql://root:${TEST_SECRET}@127.0.0.1/x?multipleStatements=true`,
          });
        } catch (error) {
          failure = error;
        }
        expect((failure as Error).message).to.match(/"multipleStatements" is not supported/);
        expect((failure as Error).message).to.not.include(TEST_SECRET);
      });
    });
  });
});
