/**
 * The REST adapter's config: what its config.schema.json accepts and refuses through the host, a
 * self-contained schema, and a header value it cannot send refused without quoting it.
 */
import { expect } from "chai";
import { testPluginHost } from "sitevoice/testing";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import restPlugin from "./index.ts";
import { restAdapters } from "./adapter-rest-fixtures.ts";

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

  describe("config", () => {
    const issues = (config: unknown) => {
      const host = testPluginHost({ allowPrivateNetworks: false });
      host.register(restPlugin, "builtin:adapter-rest");
      return host.validateConfig("adapter", "rest", config).map((i) => i.field);
    };

    it("accepts its schema's examples and a config without queryMode", () => {
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
});
