/**
 * The REST adapter in querystring mode: each filter, free text, sort and limit encoded the DRF way
 * and URL-encoded, the collection's URL, the answer's total and items, and introspection.
 */
import { expect } from "chai";
import type { DataAdapter } from "../../core/host/plugin.ts";
import type { AdapterQuery } from "../../core/search/search-types.ts";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import { products, query, restAdapters, signal } from "./adapter-rest-fixtures.ts";
import { addQueryParameters, collectionUrl } from "./rest-query.ts";

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

  describe("querystring mode", () => {
    let adapter: DataAdapter;
    before(async () => {
      adapter = await restAdapter({ baseUrl: api(), queryMode: "querystring" });
    });

    /** The path and query the backend received for `overrides`. */
    async function sent(overrides: Partial<AdapterQuery>, collection = products) {
      const arrived = server.nextRequest("/api/");
      const result = await adapter.search(collection, query(overrides), { signal });
      expect(result.success, JSON.stringify(result)).to.equal(true);
      return (await arrived).url;
    }

    describe("encodes each operator the DRF way (neq as field__neq)", () => {
      const cases: [AdapterQuery["filters"][number], string][] = [
        [{ field: "color", operator: "eq", value: "blue" }, "color=blue"],
        [{ field: "in_stock", operator: "eq", value: false }, "in_stock=false"],
        [{ field: "price", operator: "eq", value: 349 }, "price=349"],
        [{ field: "category", operator: "neq", value: "sofas" }, "category__neq=sofas"],
        [{ field: "price", operator: "gt", value: 799 }, "price__gt=799"],
        [{ field: "price", operator: "gte", value: 799 }, "price__gte=799"],
        [{ field: "price", operator: "lt", value: 99.5 }, "price__lt=99.5"],
        [{ field: "price", operator: "lte", value: 99 }, "price__lte=99"],
        [
          { field: "released_on", operator: "gte", value: "2024-01-01" },
          "released_on__gte=2024-01-01",
        ],
        [{ field: "category", operator: "contains", value: "TAB" }, "category__contains=TAB"],
        // URLSearchParams escapes the comma; the backend reads `tables,storage` all the same.
        [
          { field: "category", operator: "in", value: ["tables", "storage"] },
          "category__in=tables%2Cstorage",
        ],
      ];
      for (const [filter, expected] of cases) {
        it(`encodes ${filter.field} ${filter.operator} ${JSON.stringify(filter.value)} as ${expected}`, async () => {
          expect(await sent({ filters: [filter] }), filter.operator).to.equal(
            `/api/products/?${expected}&limit=10`,
          );
        });
      }

      it("sends in's values as one comma-separated list the backend reads back", async () => {
        await sent({
          filters: [{ field: "category", operator: "in", value: ["tables", "storage"] }],
        });
        const last = server.requests.at(-1);
        expect(last?.query.get("category__in")).to.equal("tables,storage");
      });
    });

    it("encodes free text as q, sort as ordering, and the limit", async () => {
      expect(await sent({ text: "blue sofa" })).to.equal("/api/products/?q=blue+sofa&limit=10");
      expect(await sent({ sort: { field: "price", direction: "asc" }, limit: 3 })).to.equal(
        "/api/products/?ordering=price&limit=3",
      );
      expect(await sent({ sort: { field: "price", direction: "desc" }, limit: 3 })).to.equal(
        "/api/products/?ordering=-price&limit=3",
      );
      expect(
        await sent({
          text: "sofa",
          filters: [
            { field: "color", operator: "eq", value: "blue" },
            { field: "price", operator: "lt", value: 900 },
          ],
          sort: { field: "name", direction: "desc" },
          limit: 2,
        }),
      ).to.equal("/api/products/?color=blue&price__lt=900&q=sofa&ordering=-name&limit=2");
    });

    it("URL-encodes values, so a value cannot add parameters or change the path", async () => {
      const value = "a&b=c d/é#?%+;limit=999";
      expect(await sent({ filters: [{ field: "name", operator: "eq", value }] })).to.equal(
        "/api/products/?name=a%26b%3Dc+d%2F%C3%A9%23%3F%25%2B%3Blimit%3D999&limit=10",
      );
      const received = server.requests.at(-1);
      expect(received?.query.get("name")).to.equal(value);
      expect(received?.query.getAll("limit")).to.deep.equal(["10"]);
    });

    it("keeps baseUrl's path and query and joins source with one slash", async () => {
      const withQuery = await restAdapter({
        baseUrl: `${server.origin}/api/?format=json`,
        queryMode: "querystring",
      });
      const arrived = server.nextRequest("/api/");
      const result = await withQuery.search(
        { ...products, source: "products/?in_stock=true" },
        query({ limit: 1 }),
        { signal },
      );
      expect(result).to.deep.include({ success: true, total: 8 });
      expect((await arrived).url).to.equal("/api/products/?format=json&in_stock=true&limit=1");
    });

    it("takes total from count and at most limit items", async () => {
      const result = await adapter.search(products, query({ limit: 2 }), { signal });
      expect(result.success && result.total).to.equal(12);
      expect(result.success && result.items.length).to.equal(2);
    });

    it("introspects from a sample of 50 records", async () => {
      const arrived = server.nextRequest("/api/");
      const found = await adapter.introspect?.(products, { signal });
      expect((await arrived).url).to.equal("/api/products/?limit=50");
      expect(found?.recordCount).to.equal(12);
      expect(found?.fields).to.deep.include({
        name: "released_on",
        type: "date",
        sample: "2023-02-01",
      });
      expect(found?.fields).to.deep.include({ name: "price", type: "number", sample: 799 });
      expect(found?.fields.map((f) => f.name)).to.deep.equal([
        "id",
        "name",
        "description",
        "category",
        "color",
        "price",
        "in_stock",
        "released_on",
      ]);
    });
  });

  describe("URLs", () => {
    it("joins baseUrl and source with exactly one slash", () => {
      const join = (base: string, source: string) => collectionUrl(base, source).href;
      expect(join("https://h.example/v1", "/products")).to.equal("https://h.example/v1/products");
      expect(join("https://h.example/v1/", "products/")).to.equal("https://h.example/v1/products/");
      expect(join("https://h.example/v1//", "//products")).to.equal(
        "https://h.example/v1/products",
      );
      expect(join("https://h.example", "/products")).to.equal("https://h.example/products");
      expect(join("https://h.example/v1?key=1#x", "/p?active=1")).to.equal(
        "https://h.example/v1/p?key=1&active=1",
      );
    });

    it("adds nothing but limit to an empty query", () => {
      const url = addQueryParameters(new URL("https://h.example/p"), query({ limit: 5 }));
      expect(url.search).to.equal("?limit=5");
    });
  });
});
