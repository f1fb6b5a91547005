import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { pino } from "pino";
import type { DataAdapter } from "../../core/host/plugin.ts";
import { PluginHost } from "../../core/host/plugin-host.ts";
import {
  CONFORMANCE_FIELDS,
  conformanceCollection,
  describeAdapterConformance,
} from "../../core/host/testing/index.ts";
import type { AdapterQuery, CollectionSpec } from "../../core/search/search-types.ts";
import { OutboundPolicy } from "../../core/security/outbound-policy.ts";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import restPlugin, { type RestConfig } from "./index.ts";
import { RestClient } from "./rest-client.ts";
import { addQueryParameters, collectionUrl } from "./rest-query.ts";

const logger = pino({ level: "silent" });
const signal = new AbortController().signal;
const products = conformanceCollection("/products/");

const BEARER_SECRET = "sk_live_TOPSECRET_4242";
const HEADER_SECRET = "tenant-secret-5678";

/** A checked query as the service would hand it over: no filters, limit 10. */
const query = (overrides: Partial<AdapterQuery> = {}): AdapterQuery => ({
  searchFields: [...CONFORMANCE_FIELDS.searchable_fields],
  filters: [],
  limit: 10,
  fields: [...CONFORMANCE_FIELDS.display_fields],
  ...overrides,
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = http.createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("REST adapter", () => {
  let server: DrfServer;
  const hosts: PluginHost[] = [];

  /**
   * The adapter as the service makes it: through a PluginHost handing plugins a guarded fetch.
   * The DRF server is on 127.0.0.1, so private networks are allowed unless a case says not.
   */
  async function restAdapter(
    config: RestConfig,
    options: { allowPrivateNetworks: boolean } = { allowPrivateNetworks: true },
  ): Promise<DataAdapter> {
    const host = new PluginHost({ logger, outbound: new OutboundPolicy(options) });
    host.register(restPlugin, "builtin:adapter-rest");
    host.start();
    hosts.push(host);
    return host.instance("adapter", "rest", config, "site-x");
  }

  const api = () => `${server.origin}/api`;

  before(async () => {
    server = await startDrfServer();
  });
  after(async () => {
    for (const host of hosts) await host.close();
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

  describe("failures", () => {
    const secretConfig = (baseUrl: string, extra: Partial<RestConfig> = {}): RestConfig => ({
      baseUrl,
      queryMode: "querystring",
      auth: { type: "bearer", value: BEARER_SECRET },
      headers: { "X-Tenant": HEADER_SECRET },
      ...extra,
    });

    /** Searches `source` and returns the failure message, checked free of credentials. */
    async function failure(adapter: DataAdapter, source: string, abort?: AbortSignal) {
      const result = await adapter.search({ ...products, source }, query(), {
        signal: abort ?? signal,
      });
      if (result.success) return expect.fail(`expected ${source} to fail`);
      expect(result.error).not.to.include(BEARER_SECRET);
      expect(result.error).not.to.include(HEADER_SECRET);
      return result.error;
    }

    it("turns every backend failure into success:false with a clear message", async () => {
      const adapter = await restAdapter(secretConfig(api()));
      const host = `127.0.0.1:${server.port}`;
      expect(await failure(adapter, "/status/503/")).to.equal(
        "backend answered 503 Service Unavailable",
      );
      expect(await failure(adapter, "/status/401/")).to.equal("backend answered 401 Unauthorized");
      expect(await failure(adapter, "/not-json/")).to.equal("backend answered invalid JSON");
      expect(await failure(adapter, "/wrong-shape/")).to.match(
        /^backend answered JSON that is neither/,
      );
      // A reset says no more than a refused or unreachable backend would.
      expect(await failure(adapter, "/drop/")).to.equal(`could not reach the backend at ${host}`);
      expect(await failure(adapter, "/redirect-away/")).to.equal(
        "outbound request to 127.0.0.1 refused: it redirected to another host (localhost); " +
          "only same-host redirects are followed",
      );
    });

    it("reports an unreachable backend without saying why (refused, reset, timed out)", async () => {
      const port = await closedPort();
      const adapter = await restAdapter(secretConfig(`http://127.0.0.1:${port}/api`));
      expect(await failure(adapter, "/products/")).to.equal(
        `could not reach the backend at 127.0.0.1:${port}`,
      );
      let caught: unknown;
      await adapter.test?.({ signal }).catch((error: unknown) => (caught = error));
      expect(String(caught)).to.match(
        new RegExp(`test failed: could not reach the backend at 127\\.0\\.0\\.1:${port}$`),
      );
      expect(String(caught)).not.to.include(BEARER_SECRET);
    });

    describe("gives refused, reset, connect timeout, unreachable and DNS failures one message", () => {
      const codes = ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"];
      for (const code of [...codes, "ENOTFOUND", "UND_ERR_CONNECT_TIMEOUT"]) {
        it(`says only that it could not reach the backend for ${code}`, async () => {
          // As the guarded fetch fails: TypeError("fetch failed") with the socket's error as cause.
          const failing = (async () => {
            throw new TypeError("fetch failed", {
              cause: Object.assign(new Error(`connect ${code} 10.9.8.7:5432`), { code }),
            });
          }) as typeof fetch;
          const client = new RestClient({
            fetch: failing,
            headers: new Headers(),
            timeoutMs: 1000,
            secrets: [],
          });
          const answer = await client.records(new URL("https://api.shop.example/v1/items"), signal);
          expect(answer, code).to.deep.equal({
            ok: false,
            error: "could not reach the backend at api.shop.example",
          });
        });
      }
    });

    it("stops at timeoutMs", async () => {
      const adapter = await restAdapter(secretConfig(api(), { timeoutMs: 100 }));
      const gone = server.clientGone("/api/slow/");
      expect(await failure(adapter, "/slow/")).to.match(
        new RegExp(`^backend at 127\\.0\\.0\\.1:${server.port} did not answer within \\d+ ms$`),
      );
      await gone;
    });

    it("closes the backend request when the caller's signal aborts", async () => {
      const adapter = await restAdapter(secretConfig(api()));
      const controller = new AbortController();
      const arrived = server.nextRequest("/api/slow/");
      const gone = server.clientGone("/api/slow/");
      const pending = failure(adapter, "/slow/", controller.signal);
      await arrived;
      controller.abort(new Error("the visitor left"));
      expect(await pending).to.match(/was cancelled$/);
      await gone;
    });

    it("stops reading an answer past 5 MiB and closes the connection", async () => {
      const adapter = await restAdapter(secretConfig(api()));
      const gone = server.clientGone("/api/huge/");
      expect(await failure(adapter, "/huge/")).to.equal("backend answer is larger than 5 MiB");
      await gone;
      expect(server.huge.finished).to.equal(false);
    });

    it("refuses a private backend under the default guard", async () => {
      const adapter = await restAdapter(secretConfig(api()), { allowPrivateNetworks: false });
      const before = server.requests.length;
      const message = await failure(adapter, "/products/");
      expect(message).to.include("private networks are not allowed");
      expect(message).to.match(/^outbound request to 127\.0\.0\.1 refused/);
      expect(server.requests.length).to.equal(before);
    });

    it("test() resolves for any HTTP answer", async () => {
      const adapter = await restAdapter({ baseUrl: `${api()}/nothing-here/` });
      await adapter.test?.({ signal });
    });
  });

  describe("config", () => {
    const issues = (config: unknown) => {
      const host = new PluginHost({
        logger,
        outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
      });
      host.register(restPlugin, "builtin:adapter-rest");
      return host.validateConfig("adapter", "rest", config).map((i) => i.field);
    };

    it("accepts the site schema's examples and a config without queryMode", () => {
      expect(
        issues({ baseUrl: "https://api.example.com/v1", auth: { type: "bearer", value: "x" } }),
      ).to.deep.equal([]);
      expect(
        issues({
          baseUrl: "http://localhost:8080/api",
          auth: { type: "header", header: "X-Api-Key", value: "test-key" },
          queryMode: "client-filter",
          headers: { "Accept-Language": "en" },
          timeoutMs: 5000,
        }),
      ).to.deep.equal([]);
    });

    it("refuses, through the host, what its config.schema.json refuses", () => {
      expect(issues({ baseUrl: "http://api.example.com" })).to.include("config.baseUrl");
      expect(issues({ baseUrl: "ftp://api.example.com" })).to.include("config.baseUrl");
      expect(issues({})).to.include("config.baseUrl");
      expect(issues({ baseUrl: "https://a.example", queryMode: "graphql" })).to.include(
        "config.queryMode",
      );
      expect(
        issues({ baseUrl: "https://a.example", auth: { type: "header", value: "k" } }),
      ).to.include("config.auth.header");
      expect(issues({ baseUrl: "https://a.example", extra: 1 })).to.include("config.extra");
      expect(issues({ baseUrl: "https://a.example", timeoutMs: 60_000 })).to.include(
        "config.timeoutMs",
      );
    });

    it("is self-contained: no $ref, and no x- annotations but the host's x-error-*", () => {
      const text = JSON.stringify(restPlugin.configSchema);
      expect(text).not.to.include("$ref");
      const annotations = new Set(text.match(/"x-[a-z-]+"/g));
      expect([...annotations].sort()).to.deep.equal(['"x-error-code"', '"x-error-message"']);
    });

    it("refuses a header value it cannot send, without quoting it", async () => {
      let caught: unknown;
      await restAdapter({
        baseUrl: api(),
        headers: { "X-Token": "line1\nsecret-in-header" },
      }).catch((error: unknown) => (caught = error));
      expect(String(caught)).to.include("config.headers.X-Token is not a valid HTTP header");
      expect(String(caught)).not.to.include("secret-in-header");
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

  it("serves a collection spec given by name too", async () => {
    const adapter = await restAdapter({ baseUrl: api(), queryMode: "querystring" });
    const menu: CollectionSpec = { ...products, name: "menu" };
    const result = await adapter.search(menu, query({ limit: 1 }), { signal });
    expect(result.success).to.equal(true);
  });
});
