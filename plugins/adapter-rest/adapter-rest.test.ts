/**
 * The REST adapter against a DRF-style server: the adapter conformance suite in both query modes
 * and both answer shapes, client-filter mode, and the requests it sends (headers, auth, GET only).
 */
import { expect } from "chai";
import {
  conformanceCollection,
  describeAdapterConformance,
} from "../../core/host/testing/index.ts";
import type { CollectionSpec } from "../../core/search/search-types.ts";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import {
  BEARER_SECRET,
  HEADER_SECRET,
  closedPort,
  products,
  query,
  restAdapters,
  signal,
} from "./adapter-rest-fixtures.ts";

describe("REST adapter", () => {
  let server: DrfServer;
  const { restAdapter, closeHosts } = restAdapters();

  const api = () => `${server.origin}/api`;

  before(async () => {
    server = await startDrfServer();
  });
  after(async () => {
    await closeHosts();
    await server.close();
  });

  for (const queryMode of ["querystring", "client-filter"] as const) {
    for (const [shape, source] of [
      ["{count, results}", "/products/"],
      ["a bare list", "/plain/products/"],
    ] as const) {
      describeAdapterConformance(`REST, ${queryMode} mode, ${shape}`, async () => ({
        adapter: await restAdapter({ baseUrl: api(), queryMode }),
        collection: conformanceCollection(source),
        failing:
          queryMode === "querystring"
            ? {
                adapter: await restAdapter({ baseUrl: api(), queryMode }),
                collection: conformanceCollection("/status/500/"),
              }
            : {
                adapter: await restAdapter({
                  baseUrl: `http://127.0.0.1:${await closedPort()}/api`,
                  queryMode,
                }),
                collection: conformanceCollection(source),
              },
      }));
    }
  }

  describe("client-filter mode", () => {
    it("asks for the whole collection once, with no parameters", async () => {
      const adapter = await restAdapter({ baseUrl: api(), queryMode: "client-filter" });
      const before = server.requests.length;
      const result = await adapter.search(
        products,
        query({
          text: "sofa",
          filters: [{ field: "price", operator: "lt", value: 700 }],
          sort: { field: "price", direction: "desc" },
        }),
        { signal },
      );
      expect(result).to.deep.include({ success: true, total: 1 });
      expect(server.requests.slice(before).map((r) => r.url)).to.deep.equal(["/api/products/"]);
      await adapter.introspect?.(products, { signal });
      expect(server.requests.at(-1)?.url).to.equal("/api/products/");
    });

    it("reads queryMode querystring when it is left out", async () => {
      const adapter = await restAdapter({ baseUrl: api() });
      const arrived = server.nextRequest("/api/");
      await adapter.search(products, query({ limit: 4 }), { signal });
      expect((await arrived).url).to.equal("/api/products/?limit=4");
    });
  });

  describe("requests", () => {
    it("sends Accept, the configured headers and a bearer token", async () => {
      const adapter = await restAdapter({
        baseUrl: api(),
        queryMode: "querystring",
        auth: { type: "bearer", value: BEARER_SECRET },
        headers: { "Accept-Language": "en", "X-Tenant": HEADER_SECRET },
      });
      const arrived = server.nextRequest("/api/");
      await adapter.search(products, query(), { signal });
      const { headers } = await arrived;
      expect(headers.authorization).to.equal(`Bearer ${BEARER_SECRET}`);
      expect(headers.accept).to.equal("application/json");
      expect(headers["accept-language"]).to.equal("en");
      expect(headers["x-tenant"]).to.equal(HEADER_SECRET);
    });

    it("sends the key in the named header for auth type header", async () => {
      const adapter = await restAdapter({
        baseUrl: api(),
        queryMode: "client-filter",
        auth: { type: "header", header: "X-Api-Key", value: "key-123456" },
      });
      const arrived = server.nextRequest("/api/");
      await adapter.search(products, query(), { signal });
      const { headers } = await arrived;
      expect(headers["x-api-key"]).to.equal("key-123456");
      expect(headers.authorization).to.equal(undefined);
    });

    it("makes GET requests only: searching, introspecting and testing, in both modes", async () => {
      const before = server.requests.length;
      for (const queryMode of ["querystring", "client-filter"] as const) {
        const adapter = await restAdapter({ baseUrl: api(), queryMode });
        await adapter.search(products, query({ text: "sofa" }), { signal });
        await adapter.introspect?.(products, { signal });
        await adapter.test?.({ signal });
      }
      const methods = new Set(server.requests.slice(before).map((r) => r.method));
      expect([...methods]).to.deep.equal(["GET"]);
    });
  });

  it("serves a collection spec given by name too", async () => {
    const adapter = await restAdapter({ baseUrl: api(), queryMode: "querystring" });
    const menu: CollectionSpec = { ...products, name: "menu" };
    const result = await adapter.search(menu, query({ limit: 1 }), { signal });
    expect(result.success).to.equal(true);
  });
});
