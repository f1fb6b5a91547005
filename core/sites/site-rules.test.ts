/**
 * The site rules with the built-in adapter plugins loaded: an adapter's config and collections are
 * judged by its plugin's own schemas (configSchema, collectionSchema), in the same words and with
 * the same 400/422 split as the site schema's own fields.
 */
import { expect } from "chai";
import type { ServiceError } from "../errors.ts";
import { httpStatus } from "../http/error-status.ts";
import type { InstalledPlugins } from "../compose.ts";
import { installedPlugins } from "../../test/helpers/installed-plugins.ts";
import { refusalOf } from "../../test/helpers/thrown.ts";
import type { SiteRules } from "./site-rules.ts";

const minimalSite = () => ({
  business_name: "Acme Dental",
  business_description: "Family dental clinic.",
  domain: "acmedental.example.com",
});

const withAdapter = (type: string, config: object, collections: object = {}) => ({
  ...minimalSite(),
  adapter: { type, config, collections },
});

const withRestAdapter = (baseUrl: string) =>
  withAdapter(
    "rest",
    { baseUrl },
    { services: { source: "/services", searchable_fields: ["name"] } },
  );

describe("site rules with the built-in adapter plugins", () => {
  let installed: InstalledPlugins;
  let rules: SiteRules;

  before(async () => {
    installed = await installedPlugins();
    rules = installed.rules;
  });

  after(async () => {
    await installed.plugins.close();
  });

  const rejection = (data: unknown) => refusalOf(() => rules.accept("site-create", data));

  function expectInvalid(data: unknown, field: string): ServiceError {
    const error = rejection(data);
    expect([error.code, httpStatus(error), error.details.field]).to.deep.equal([
      "invalid_request",
      400,
      field,
    ]);
    return error;
  }

  describe("REST", () => {
    it("rejects a plain-http baseUrl as a business rule (422, adapter.config.baseUrl)", () => {
      const error = rejection(withRestAdapter("http://example.com/api"));
      expect(error.code).to.equal("validation_failed");
      expect(httpStatus(error)).to.equal(422);
      expect(error.details.field).to.equal("adapter.config.baseUrl");
      expect(error.message).to.equal(
        "adapter.config.baseUrl must use https:// (plain http is allowed only for localhost and 127.0.0.1)",
      );
      expect(error.details.errors).to.deep.equal([
        {
          field: "adapter.config.baseUrl",
          message:
            "adapter.config.baseUrl must use https:// (plain http is allowed only for localhost and 127.0.0.1)",
          code: "validation_failed",
          plugin: "adapter-rest",
        },
      ]);
      expect(error.details.plugin).to.equal("adapter-rest");
    });

    for (const baseUrl of [
      "http://localhost:8080/api",
      "http://127.0.0.1/api",
      "http://localhost",
      "https://api.example.com/v1",
    ]) {
      it(`accepts the baseUrl ${baseUrl}, queryMode filled in from the plugin's default`, () => {
        const site = rules.accept<{ adapter: { config: object } }>(
          "site-create",
          withRestAdapter(baseUrl),
        );
        expect(site.adapter.config).to.deep.equal({ baseUrl, queryMode: "querystring" });
      });
    }

    for (const baseUrl of ["http://localhost.evil.example/api", "http://127.0.0.1.nip.io/"]) {
      it(`treats ${baseUrl} as plain http to another host (422)`, () => {
        expect(rejection(withRestAdapter(baseUrl)).code).to.equal("validation_failed");
      });
    }

    it("rejects an ftp:// baseUrl as malformed (400), not as a business rule", () => {
      const error = expectInvalid(withRestAdapter("ftp://x"), "adapter.config.baseUrl");
      expect(error.details.errors).to.deep.equal([
        {
          field: "adapter.config.baseUrl",
          message:
            "adapter.config.baseUrl must be an absolute http(s) URL such as https://api.example.com/v1 (a port from 1 to 65535)",
          code: "invalid_request",
          plugin: "adapter-rest",
        },
      ]);
      expect(error.details.plugin).to.equal("adapter-rest");
    });

    it("gives 400, led by the shape problem, when a business rule fails beside it", () => {
      const body = withRestAdapter("http://example.com/api");
      const error = expectInvalid(
        { ...body, transcript_retention_days: -1 },
        "transcript_retention_days",
      );
      expect(error.message).to.equal(
        "transcript_retention_days must be at least 0 (and 1 more problem)",
      );
      expect(error.details.errors).to.have.length(2);
    });

    it("requires baseUrl", () => {
      const error = expectInvalid(withAdapter("rest", {}), "adapter.config.baseUrl");
      expect(error.message).to.equal("adapter.config.baseUrl is required");
    });

    it("requires auth.header for header auth", () => {
      const config = { baseUrl: "https://api.example.com", auth: { type: "header", value: "k" } };
      expectInvalid(withAdapter("rest", config), "adapter.config.auth.header");
    });

    it("names an unknown config field", () => {
      const config = { baseUrl: "https://api.example.com", baseURL: "https://x.example" };
      const error = expectInvalid(withAdapter("rest", config), "adapter.config.baseURL");
      expect(error.message).to.equal("adapter.config.baseURL is not a known field");
    });
  });

  describe("SQL", () => {
    for (const type of ["postgres", "mysql"]) {
      it(`${type}: requires a connection string of its own scheme`, () => {
        expectInvalid(withAdapter(type, {}), "adapter.config.connectionString");
        const other = type === "postgres" ? "mysql://x" : "postgres://x";
        expectInvalid(
          withAdapter(type, { connectionString: other }),
          "adapter.config.connectionString",
        );
      });

      it(`${type}: refuses a connection string carrying driver parameters (400)`, () => {
        const scheme = type === "postgres" ? "postgres" : "mysql";
        const parameter =
          type === "postgres" ? "sslrootcert=/etc/passwd" : "multipleStatements=true";
        const error = expectInvalid(
          withAdapter(type, { connectionString: `${scheme}://u@db.example/shop?${parameter}` }),
          "adapter.config.connectionString",
        );
        expect(error.message).to.match(/^adapter\.config\.connectionString takes no parameter/);
      });

      it(`${type}: refuses a collection source that is not a table name (its collectionSchema)`, () => {
        const scheme = type === "postgres" ? "postgres" : "mysql";
        const error = expectInvalid(
          withAdapter(
            type,
            { connectionString: `${scheme}://u@db.example/shop` },
            { products: { source: "products; drop table users", searchable_fields: ["name"] } },
          ),
          "adapter.collections.products.source",
        );
        expect(error.message).to.equal(
          "adapter.collections.products.source must be a table or view name such as products or catalog.products (letters, digits, _ and $)",
        );
      });
    }
  });

  it("mysql: takes the charset parameter", () => {
    const config = { connectionString: "mysql://u@db.example/shop?charset=utf8mb4" };
    expect(() => rules.accept("site-create", withAdapter("mysql", config))).not.to.throw();
  });

  it("refuses an adapter type no loaded plugin serves (422), naming the ones there are", () => {
    const error = rejection(withAdapter("notion", { anything: ["goes"] }));
    expect([error.code, error.details.field]).to.deep.equal(["validation_failed", "adapter.type"]);
    expect(error.message)
      .to.include("airtable")
      .and.include("mysql")
      .and.include("postgres")
      .and.include("rest");
  });
});
