import { expect } from "chai";
import { pino } from "pino";
import { compileSchema } from "../../host/plugin-config-schema.ts";
import mysqlConfigSchema from "../../../plugins/adapter-mysql/config.schema.json" with { type: "json" };
import postgresConfigSchema from "../../../plugins/adapter-postgres/config.schema.json" with { type: "json" };
import type { AdapterQuery } from "../search-types.ts";
import { containsPattern, countStatement, parseSource, searchStatement } from "./build-search.ts";
import { mysqlDialect, postgresDialect } from "./dialect.ts";
import { SqlAdapterError, secretRedactor } from "./errors.ts";

const query = (overrides: Partial<AdapterQuery> = {}): AdapterQuery => ({
  searchFields: ["name", "description"],
  filters: [],
  limit: 10,
  fields: ["id", "name"],
  ...overrides,
});

function refusedBy(action: () => unknown): SqlAdapterError {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(SqlAdapterError);
    expect((error as SqlAdapterError).kind).to.equal("refused");
    return error as SqlAdapterError;
  }
  return expect.fail("expected a refusal");
}

describe("SQL search builder", () => {
  describe("parseSource", () => {
    it("takes a table or schema.table, and qualifies a bare table with the default schema", () => {
      expect(parseSource("products")).to.deep.equal(["products"]);
      expect(parseSource("shop.products")).to.deep.equal(["shop", "products"]);
      expect(parseSource("Products_2$")).to.deep.equal(["Products_2$"]);
      expect(parseSource("products", "shop")).to.deep.equal(["shop", "products"]);
      expect(parseSource("public.products", "shop")).to.deep.equal(["public", "products"]);
    });

    describe("refuses anything else", () => {
      for (const source of [
        "",
        "a.b.c",
        "shop.",
        ".products",
        "products;",
        "products --",
        'products"',
        "products`",
        "prödukte",
        "x".repeat(64),
      ]) {
        it(`refuses the source ${JSON.stringify(source.length > 20 ? `${source.slice(0, 8)}… (${source.length})` : source)}`, () => {
          refusedBy(() => parseSource(source));
        });
      }

      it("refuses a default schema that is not a name", () => {
        refusedBy(() => parseSource("products", "shop;drop"));
      });
    });
  });

  it("quotes identifiers with their dialect's quote, doubling one inside", () => {
    expect(postgresDialect.quoteIdentifier('we"ird`')).to.equal('"we""ird`"');
    expect(mysqlDialect.quoteIdentifier('we"ird`')).to.equal('`we"ird```');
  });

  it("makes LIKE wildcards and the escape character literal", () => {
    expect(containsPattern("100% wool_blend!")).to.equal("%100!% wool!_blend!!%");
  });

  it("builds a PostgreSQL search with bound values, window total, sort and limit", () => {
    const statement = searchStatement(
      postgresDialect,
      ["shop", "products"],
      query({
        text: "blue",
        filters: [
          { field: "price", operator: "lt", value: 800 },
          { field: "color", operator: "in", value: ["blue", "grey"] },
          { field: "category", operator: "contains", value: "TAB" },
          { field: "in_stock", operator: "eq", value: true },
        ],
        sort: { field: "price", direction: "desc" },
        limit: 3,
      }),
      { windowCount: true, primaryKey: ["id"] },
    );
    expect(statement).to.deep.equal({
      sql:
        'SELECT "id", "name", COUNT(*) OVER () AS "sitevoice_total" FROM "shop"."products"' +
        ` WHERE (CAST("name" AS text) ILIKE $1 ESCAPE '!' OR CAST("description" AS text) ILIKE $2 ESCAPE '!')` +
        ` AND "price" < $3 AND "color" IN ($4, $5) AND CAST("category" AS text) ILIKE $6 ESCAPE '!'` +
        ` AND "in_stock" = $7 ORDER BY "price" DESC NULLS LAST, "id" ASC LIMIT 3`,
      params: ["%blue%", "%blue%", 800, "blue", "grey", "%TAB%", true],
      totalColumn: "sitevoice_total",
    });
  });

  it("builds the same search for MySQL", () => {
    const statement = searchStatement(
      mysqlDialect,
      ["products"],
      query({
        text: "blue",
        filters: [{ field: "released_on", operator: "gte", value: "2024-01-01" }],
        sort: { field: "price", direction: "asc" },
      }),
      { windowCount: true, primaryKey: ["id"] },
    );
    expect(statement).to.deep.equal({
      sql:
        "SELECT `id`, `name`, COUNT(*) OVER () AS `sitevoice_total` FROM `products`" +
        " WHERE (LOWER(`name`) LIKE LOWER(?) ESCAPE '!' OR LOWER(`description`) LIKE LOWER(?) ESCAPE '!')" +
        " AND `released_on` >= ? ORDER BY (`price` IS NULL), `price` ASC, `id` ASC LIMIT 10",
      params: ["%blue%", "%blue%", "2024-01-01"],
      totalColumn: "sitevoice_total",
    });
  });

  describe("ORDER BY: ties in a stable order", () => {
    it("orders ties by the primary key, ascending, after the requested sort", () => {
      const statement = searchStatement(
        postgresDialect,
        ["products"],
        query({ sort: { field: "rating", direction: "desc" }, limit: 7 }),
        { windowCount: false, primaryKey: ["sku"] },
      );
      expect(statement.sql).to.equal(
        'SELECT "id", "name" FROM "products" ORDER BY "rating" DESC NULLS LAST, "sku" ASC LIMIT 7',
      );
    });

    it("quotes every column of a composite key from the catalog, in key order", () => {
      const statement = searchStatement(
        mysqlDialect,
        ["products"],
        query({ sort: { field: "rating", direction: "asc" } }),
        { windowCount: false, primaryKey: ["size", "odd`name"] },
      );
      expect(statement.sql).to.equal(
        "SELECT `id`, `name` FROM `products`" +
          " ORDER BY (`rating` IS NULL), `rating` ASC, `size` ASC, `odd``name` ASC LIMIT 10",
      );
    });

    it("orders ties by the returned fields, NULLs last, where the relation has no key", () => {
      const statement = searchStatement(
        mysqlDialect,
        ["products_view"],
        query({ fields: ["name", "rating"], sort: { field: "rating", direction: "desc" } }),
        { windowCount: false, primaryKey: [] },
      );
      expect(statement.sql).to.equal(
        "SELECT `name`, `rating` FROM `products_view`" +
          " ORDER BY (`rating` IS NULL), `rating` DESC, (`name` IS NULL), `name` ASC LIMIT 10",
      );
    });

    it("orders a search without a sort by the primary key", () => {
      const statement = searchStatement(postgresDialect, ["products"], query(), {
        windowCount: false,
        primaryKey: ["sku"],
      });
      expect(statement.sql).to.equal(
        'SELECT "id", "name" FROM "products" ORDER BY "sku" ASC LIMIT 10',
      );
    });

    it("orders a search without a sort or a key by the returned fields", () => {
      const statement = searchStatement(postgresDialect, ["products_view"], query(), {
        windowCount: false,
        primaryKey: [],
      });
      expect(statement.sql).to.equal(
        'SELECT "id", "name" FROM "products_view"' +
          ' ORDER BY CAST("id" AS text) ASC NULLS LAST, CAST("name" AS text) ASC NULLS LAST LIMIT 10',
      );
    });
  });

  it("counts in a statement of its own where the server has no window functions", () => {
    const q = query({ filters: [{ field: "color", operator: "neq", value: "red" }] });
    const statement = searchStatement(mysqlDialect, ["products"], q, {
      windowCount: false,
      primaryKey: ["id"],
    });
    expect(statement.totalColumn).to.equal(undefined);
    expect(statement.sql).to.equal(
      "SELECT `id`, `name` FROM `products` WHERE `color` <> ? ORDER BY `id` ASC LIMIT 10",
    );
    expect(countStatement(mysqlDialect, ["products"], q)).to.deep.equal({
      sql: "SELECT COUNT(*) AS `total` FROM `products` WHERE `color` <> ?",
      params: ["red"],
    });
  });

  it("names the total column so that it cannot clash with a field", () => {
    const statement = searchStatement(
      postgresDialect,
      ["t"],
      query({ fields: ["sitevoice_total", "_sitevoice_total"] }),
      { windowCount: true, primaryKey: [] },
    );
    expect(statement.totalColumn).to.equal("__sitevoice_total");
  });

  it("matches nothing for an empty in list or free text without searchable fields", () => {
    const statement = searchStatement(
      postgresDialect,
      ["t"],
      query({ text: "x", searchFields: [], filters: [{ field: "a", operator: "in", value: [] }] }),
      { windowCount: false, primaryKey: ["id"] },
    );
    expect(statement.sql).to.equal(
      'SELECT "id", "name" FROM "t" WHERE FALSE AND FALSE ORDER BY "id" ASC LIMIT 10',
    );
  });

  describe("refuses values and limits a checked query never has", () => {
    const build = (q: AdapterQuery) =>
      searchStatement(postgresDialect, ["t"], q, { windowCount: true, primaryKey: ["id"] });
    for (const limit of [0, 11, 1.5, Number.NaN]) {
      it(`refuses the limit ${limit}`, () => {
        refusedBy(() => build(query({ limit })));
      });
    }
    for (const value of [null, { a: 1 }, Number.POSITIVE_INFINITY, ["x"]]) {
      it(`refuses the eq value ${typeof value === "number" ? String(value) : JSON.stringify(value)}`, () => {
        refusedBy(() =>
          build(query({ filters: [{ field: "a", operator: "eq", value } as never] })),
        );
      });
    }

    it("refuses an in value that is not a list", () => {
      refusedBy(() => build(query({ filters: [{ field: "a", operator: "in", value: "x" }] })));
    });

    it("refuses an operator it does not know", () => {
      refusedBy(() =>
        build(query({ filters: [{ field: "a", operator: "like" as never, value: 1 }] })),
      );
    });

    it("refuses a query that returns no fields", () => {
      refusedBy(() => build(query({ fields: [] })));
    });

    it("refuses a sort direction that is neither asc nor desc", () => {
      refusedBy(() => build(query({ sort: { field: "a", direction: "sideways" as never } })));
    });
  });
});

describe("SQL adapter secrets", () => {
  it("masks the connection string, its password raw and decoded, and URL credentials", () => {
    const url = "postgres://reader:p%40ss-w0rd@db.internal:5432/shop";
    const redact = secretRedactor(url);
    expect(redact(`could not connect to ${url}`)).to.equal("could not connect to ***");
    expect(redact("password p@ss-w0rd rejected")).to.equal("password *** rejected");
    expect(redact("at mysql://other:hunter2@x/y")).to.equal("at mysql://other:***@x/y");
  });
});

describe("SQL adapter config schemas", () => {
  const cases = [
    ["PostgreSQL", postgresConfigSchema, "postgres://x"],
    ["MySQL", mysqlConfigSchema, "mysql://x"],
  ] as const;
  for (const [name, schema, url] of cases) {
    it(`${name}'s own config schema compiles as the host compiles it, and takes its URLs only`, () => {
      const validate = compileSchema(schema, pino({ level: "silent" }));
      expect(validate({ connectionString: url })).to.equal(true);
      expect(validate({ connectionString: "http://x" })).to.equal(false);
      expect(validate({ connectionString: `${url}:99999/db` })).to.equal(false);
    });
  }
});
