/**
 * POST /v1/:siteId/query with an API key holding query:test: the search path end to end over
 * HTTP, and each error of the API reference's query table that does not need the widget's signature. The
 * sites are made once, in the before hook, and no test changes them.
 */
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { adaptersTestCommand } from "../core/search/adapters-command.ts";
import { CONFORMANCE_DATASET, CONFORMANCE_FIELDS } from "../core/host/testing/index.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

const site = (siteId: string, adapter?: object) => ({
  site_id: siteId,
  business_name: "Nordic Home",
  business_description: "Furniture",
  domain: `${siteId}.example`,
  ...(adapter === undefined ? {} : { adapter }),
});

describe("POST /v1/:siteId/query", function () {
  let database: TestDatabase | undefined;
  let service: TestService;
  let auth: { Authorization: string };
  let workspaceId: string;
  const query = (siteId: string, body: unknown) =>
    request(service.server)
      .post(`/v1/${siteId}/query`)
      .set(auth)
      .send(body as object);

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url, {
      SITEVOICE_PLUGINS: "sitevoice-adapter-inline,sitevoice-adapter-example",
    });
    workspaceId = await service.workspace();
    auth = {
      Authorization: `Bearer ${await service.key(workspaceId, { scopes: ["query:test"] })}`,
    };
    const principal = operatorPrincipal(workspaceId, "test");
    await service.sites.create(
      principal,
      site("shop", {
        type: "inline",
        config: { records: { products: CONFORMANCE_DATASET, empty: [] } },
        collections: {
          products: { source: "products", ...CONFORMANCE_FIELDS },
          everything: {
            source: "products",
            searchable_fields: ["name"],
            filterable_fields: ["price"],
            display_fields: [],
          },
          missing: {
            source: "nowhere",
            searchable_fields: [],
            filterable_fields: [],
            display_fields: [],
          },
        },
      }),
    );
    await service.sites.create(
      principal,
      site("broken", {
        type: "example",
        config: { dataset: "explode" },
        collections: { pages: { source: "pages" } },
      }),
    );
    await service.sites.create(principal, site("no-adapter"));
    const other = await service.workspace();
    await service.sites.create(operatorPrincipal(other, "test"), site("elsewhere"));
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("answers the Query result with the display fields only", async () => {
    const res = await query("shop", {
      collection: "products",
      query: "sofa",
      filters: [{ field: "price", operator: "lt", value: 800 }],
      sort_by: "price",
      sort_direction: "desc",
    }).expect(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.data).to.deep.equal({
      success: true,
      total: 2,
      returned: 2,
      items: [
        { id: 1, name: "Oslo Sofa", category: "sofas", color: "blue", price: 799, in_stock: true },
        {
          id: 2,
          name: "Bergen Sofa",
          category: "sofas",
          color: "grey",
          price: 649,
          in_stock: false,
        },
      ],
    });
  });

  it("returns all three field lists when a collection has no display fields", async () => {
    const res = await query("shop", {
      collection: "everything",
      limit: 1,
      sort_by: "price",
    }).expect(200);
    expect(res.body.data.items).to.deep.equal([{ name: "Tromso Throw", price: 79 }]);
    expect(res.body.data.total).to.equal(12);
  });

  for (const [body, field] of [
    [{}, "collection"],
    [{ collection: "products", limit: "5" }, "limit"],
    [{ collection: "products", colour: "blue" }, "colour"],
    [{ collection: "products", filters: [{ field: "price", operator: "eq" }] }, "filters.0.value"],
    [[], "body"],
  ] as const) {
    it(`400 invalid_request naming ${field} for ${JSON.stringify(body)}`, async () => {
      const res = await query("shop", body).expect(400);
      expect(res.body.error.code, JSON.stringify(body)).to.equal("invalid_request");
      expect(res.body.error.details.field, JSON.stringify(body)).to.equal(field);
    });
  }

  it("400 invalid_request for a body that is not JSON", async () => {
    const malformed = await request(service.server)
      .post("/v1/shop/query")
      .set(auth)
      .set("Content-Type", "application/json")
      .send("{not json")
      .expect(400);
    expect(malformed.body.error.code).to.equal("invalid_request");
  });

  describe("422 validation_failed naming an unknown collection, field, operator or value", () => {
    const cases: [object, string, RegExp][] = [
      [
        { collection: "staff" },
        "collection",
        /collection "staff" is not a collection of this site/,
      ],
      [
        { collection: "products", filters: [{ field: "cost", operator: "eq", value: 1 }] },
        "filters.0.field",
        /field "cost" is not a field of collection "products"/,
      ],
      [{ collection: "products", sort_by: "secret_margin" }, "sort_by", /"secret_margin"/],
      [
        { collection: "products", filters: [{ field: "price", operator: "like", value: 1 }] },
        "filters.0.operator",
        /must be one of eq, neq/,
      ],
      [{ collection: "products", limit: 11 }, "limit", /limit must be from 1 to 10/],
      [{ collection: "products", limit: 0 }, "limit", /limit must be from 1 to 10/],
      [{ collection: "products", sort_direction: "up" }, "sort_direction", /asc or desc/],
      [
        { collection: "products", filters: [{ field: "color", operator: "in", value: "blue" }] },
        "filters.0.value",
        /array of 1 to 50 values/,
      ],
      [
        { collection: "products", filters: [{ field: "color", operator: "eq", value: ["a"] }] },
        "filters.0.value",
        /single value/,
      ],
      [{ collection: "missing", query: "x" }, "query", /no searchable fields/],
    ];
    for (const [body, field, message] of cases) {
      it(`422 validation_failed naming ${field} for ${JSON.stringify(body)}`, async () => {
        const res = await query("shop", body);
        expect(res.status, JSON.stringify(body)).to.equal(422);
        expect(res.body.error.code).to.equal("validation_failed");
        expect(res.body.error.details.field, JSON.stringify(body)).to.equal(field);
        expect(res.body.error.message).to.match(message);
      });
    }
  });

  it("422 adapter_error with details.error when the adapter fails", async () => {
    const failed = await query("shop", { collection: "missing" }).expect(422);
    expect(failed.body.error.code).to.equal("adapter_error");
    expect(failed.body.error.details.error).to.equal('no records for source "nowhere"');
  });

  it("422 adapter_error with a generic details.error when the adapter throws", async () => {
    const threw = await query("broken", { collection: "pages" }).expect(422);
    expect(threw.body.error.code).to.equal("adapter_error");
    expect(threw.body.error.details.error).to.equal("the adapter failed unexpectedly");
  });

  it("403 origin_not_allowed without a key or Origin", async () => {
    const unsigned = await request(service.server)
      .post("/v1/shop/query")
      .send({ collection: "products" })
      .expect(403); // no key: the widget path, which wants the site's Origin first
    expect(unsigned.body.error.code).to.equal("origin_not_allowed");
  });

  it("401 for a bad key", async () => {
    await request(service.server)
      .post("/v1/shop/query")
      .set({ Authorization: "Bearer vk_test_unknown" })
      .send({ collection: "products" })
      .expect(401);
  });

  it("403 forbidden for a key without query:test", async () => {
    const reader = await service.key(service.boot.workspaceId, { scopes: ["sites:read"] });
    const forbidden = await request(service.server)
      .post("/v1/shop/query")
      .set({ Authorization: `Bearer ${reader}` })
      .send({ collection: "products" })
      .expect(403);
    expect(forbidden.body.error.code).to.equal("forbidden");
  });

  for (const [what, siteId] of [
    ["an unknown site", "nope-nope"],
    ["another workspace's site", "elsewhere"],
  ]) {
    it(`404 site_not_found for ${what}`, async () => {
      const res = await query(siteId!, { collection: "products" }).expect(404);
      expect(res.body.error.code).to.equal("site_not_found");
    });
  }

  it("422 naming the adapter for a site without one", async () => {
    const noAdapter = await query("no-adapter", { collection: "products" }).expect(422);
    expect(noAdapter.body.error.details.field).to.equal("adapter");
  });

  it("sitevoice adapters test prints the connection and each collection's fields", async () => {
    const lines: string[] = [];
    const code = await adaptersTestCommand("shop", {
      sites: service.sites,
      plugins: service.plugins,
      principal: operatorPrincipal(workspaceId, "cli"),
      out: (line) => lines.push(line),
    });
    expect(code).to.equal(0);
    expect(lines.slice(0, 3)).to.deep.equal([
      "site shop: adapter inline (sitevoice-adapter-inline)",
      "connection: ok",
      "collection everything (products): 12 records",
    ]);
    expect(lines).to.include("  price        number   799");
    expect(lines).to.include('  released_on  date     "2023-02-01"');
    expect(lines).to.include("collection missing (nowhere): 0 records");
  });

  for (const [route, send] of [
    [
      "a widget route",
      () => request(service.server).get("/v1/%ZZ/config").set("Origin", "https://shop.example"),
    ],
    ["a key route", () => request(service.server).get("/v1/sites/%E0%A4%A").set(auth)],
  ] as const) {
    it(`400 for a path that does not decode, on ${route}`, async () => {
      const res = await send().expect(400);
      expect(res.body.error).to.include({ code: "invalid_request" });
      expect(res.body.error.details.field).to.equal("path");
    });
  }

  it("413 for a body over 64 KiB", async () => {
    const res = await query("shop", {
      collection: "products",
      query: "x".repeat(70 * 1024),
    }).expect(413);
    expect(res.body.error.code).to.equal("payload_too_large");
  });
});
