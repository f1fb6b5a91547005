import { readdirSync } from "node:fs";
import { expect } from "chai";
import { httpStatus } from "../http/error-status.ts";
import type { SchemaObject } from "ajv";
import { ServiceError } from "../errors.ts";
import {
  createSchemaAjv,
  schemaFor,
  schemaNames,
  validateBody,
  type SchemaName,
} from "./schema-validator.ts";
import type { SiteConfig } from "../types/generated/site.ts";
import type { SiteCreateRequest } from "../types/generated/site-create.ts";
import type { SitePatchRequest } from "../types/generated/site-patch.ts";

/** Runs validateBody expecting a ServiceError and returns it. */
function rejection(name: SchemaName, data: unknown): ServiceError {
  try {
    validateBody(name, data);
  } catch (error) {
    expect(error).to.be.instanceOf(ServiceError);
    return error as ServiceError;
  }
  expect.fail(`${name} accepted ${JSON.stringify(data)}`);
}

function expectInvalid(name: SchemaName, data: unknown, field: string): ServiceError {
  const error = rejection(name, data);
  expect(error.code).to.equal("invalid_request");
  expect(httpStatus(error)).to.equal(400);
  expect(error.details.field).to.equal(field);
  return error;
}

const minimalSite = () => ({
  business_name: "Acme Dental",
  business_description: "Family dental clinic.",
  domain: "acmedental.example.com",
});

const withRestAdapter = (baseUrl: string) => ({
  ...minimalSite(),
  adapter: {
    type: "rest",
    config: { baseUrl },
    collections: { services: { source: "/services", searchable_fields: ["name"] } },
  },
});

/** Every subschema carrying `examples`, with the JSON pointer to it. */
function subschemasWithExamples(schema: SchemaObject): [string, unknown[]][] {
  const found: [string, unknown[]][] = [];
  const walk = (node: unknown, pointer: string) => {
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.examples)) found.push([pointer, record.examples]);
    for (const [key, value] of Object.entries(record)) {
      if (["examples", "default", "const", "enum"].includes(key)) continue;
      if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${pointer}/${key}/${i}`));
      else walk(value, `${pointer}/${key}`);
    }
  };
  walk(schema, "");
  return found;
}

describe("schemas", () => {
  it("registers every file of schemas/", () => {
    const files = readdirSync(new URL("../../schemas/", import.meta.url)).filter((file) =>
      file.endsWith(".schema.json"),
    );
    expect(files.map((file) => file.replace(".schema.json", "")).sort()).to.deep.equal(
      [...schemaNames].sort(),
    );
  });

  describe("documents every schema and every property with title, description and examples", () => {
    for (const name of schemaNames) {
      it(`documents ${name} and every property of it`, () => {
        const lacking: string[] = [];
        const walk = (node: unknown, path: string) => {
          if (typeof node !== "object" || node === null) return;
          const record = node as Record<string, unknown>;
          // A bare $ref reuses a documented definition.
          const isBareRef = typeof record.$ref === "string" && Object.keys(record).length === 1;
          if (!isBareRef) {
            for (const key of ["title", "description", "examples"]) {
              if (!(key in record)) lacking.push(`${path || "root"} lacks ${key}`);
            }
          }
          for (const [key, value] of Object.entries((record.properties ?? {}) as object)) {
            walk(value, `${path}.${key}`);
          }
          for (const [key, value] of Object.entries((record.$defs ?? {}) as object)) {
            walk(value, `$defs.${key}`);
          }
        };
        walk(schemaFor(name), "");
        // Every gap at once, not only the first.
        expect(lacking, name).to.deep.equal([]);
      });
    }
  });

  describe("accepts every example at the root through validateBody", () => {
    for (const name of schemaNames) {
      (schemaFor(name).examples as unknown[]).forEach((example, i) => {
        it(`accepts ${name} example ${i + 1}`, () => {
          expect(
            () => validateBody(name, structuredClone(example)),
            `${name} example`,
          ).not.to.throw();
        });
      });
    }
  });

  describe("accepts every example of every subschema", () => {
    // Fragments such as `properties/enabled_pages` hold a default at their own root, which strict
    // mode refuses when they are compiled alone.
    let ajv: ReturnType<typeof createSchemaAjv>;
    before(() => {
      ajv = createSchemaAjv({ strict: false });
    });

    for (const name of schemaNames) {
      const schema = schemaFor(name);
      for (const [pointer, examples] of subschemasWithExamples(schema)) {
        examples.forEach((example, i) => {
          it(`accepts ${name}#${pointer} example ${i + 1}`, () => {
            const validate = ajv.compile({ $ref: `${schema.$id}#${pointer}` });
            const ok = validate(structuredClone(example));
            expect(ok, `${name}#${pointer}: ${JSON.stringify(validate.errors)}`).to.equal(true);
          });
        });
      }
    }
  });
});

describe("validateBody", () => {
  describe("site-create", () => {
    it("fills the defaults, nested ones included", () => {
      const site = validateBody<SiteCreateRequest>("site-create", minimalSite());
      expect(site).to.deep.include({
        schema_version: 1,
        additional_domains: [],
        industry: "general",
        timezone: "UTC",
        language: "en",
        voice: "alloy",
        personality: "",
        restricted_topics: [],
        appearance: { color: "#2563eb", position: "bottom-right", size: "medium" },
        pronunciations: {},
        enabled_pages: ["/*"],
        disabled_pages: [],
        transcript_retention_days: 30,
        lead_capture: { enabled: false, fields: ["name", "email", "phone"] },
      });
      expect(site).not.to.have.property("adapter");
      expect(site).not.to.have.property("site_id");
    });

    it("keeps given values and fills missing members of a given object", () => {
      const site = validateBody<SiteCreateRequest>("site-create", {
        ...minimalSite(),
        enabled_pages: [],
        appearance: { size: "large" },
      });
      expect(site.enabled_pages).to.deep.equal([]);
      expect(site.appearance).to.deep.equal({
        color: "#2563eb",
        position: "bottom-right",
        size: "large",
      });
    });

    it("fills adapter defaults (collection field lists) and leaves the config to its plugin", () => {
      const site = validateBody<SiteCreateRequest>(
        "site-create",
        withRestAdapter("https://api.example.com/v1"),
      );
      expect(site.adapter?.config).to.deep.equal({ baseUrl: "https://api.example.com/v1" });
      expect(site.adapter?.collections.services).to.deep.equal({
        source: "/services",
        searchable_fields: ["name"],
        filterable_fields: [],
        display_fields: [],
      });
    });

    it("accepts a fixed site_id", () => {
      const site = validateBody<SiteCreateRequest>("site-create", {
        ...minimalSite(),
        site_id: "acme-dental",
      });
      expect(site.site_id).to.equal("acme-dental");
    });

    it("rejects a missing domain (400, field domain)", () => {
      const error = expectInvalid(
        "site-create",
        { business_name: "Acme", business_description: "" },
        "domain",
      );
      expect(error.message).to.equal("domain is required");
    });

    for (const domain of ["https://example.com", "example.com/", "exa mple.com", "-example.com"]) {
      it(`rejects the host ${JSON.stringify(domain)} (400, field domain)`, () => {
        const error = expectInvalid("site-create", { ...minimalSite(), domain }, "domain");
        expect(error.message).to.match(/^domain must match a host name such as example\.com/);
      });
    }

    for (const domain of ["localhost:3000", "127.0.0.1:8080", "shop.example.co.uk"]) {
      it(`accepts the host ${domain} (a port, localhost, an IP, a multi-part suffix)`, () => {
        expect(() => validateBody("site-create", { ...minimalSite(), domain })).not.to.throw();
      });
    }

    it("names an array element by its index", () => {
      const error = expectInvalid(
        "site-create",
        { ...minimalSite(), additional_domains: ["www.example.com", "bad host"] },
        "additional_domains.1",
      );
      expect(error.details.errors).to.have.length(1);
    });

    it("rejects an unknown property, naming it (400)", () => {
      const error = expectInvalid(
        "site-create",
        { ...minimalSite(), unknown_field: true },
        "unknown_field",
      );
      expect(error.message).to.equal("unknown_field is not a known field");
    });

    it("rejects read-only fields", () => {
      expectInvalid("site-create", { ...minimalSite(), version: 3 }, "version");
    });

    it("names a bad collection key", () => {
      const error = rejection("site-create", {
        ...minimalSite(),
        adapter: { type: "rest", config: {}, collections: { "9lives": {} } },
      });
      expect(error.code).to.equal("invalid_request");
      expect(error.details.errors).to.deep.include.members([
        {
          field: "adapter.collections.9lives",
          message:
            "The name \"9lives\" in adapter.collections must be a collection name of letters, digits and '_', not starting with a digit (at most 64)",
        },
        {
          field: "adapter.collections.9lives.source",
          message: "adapter.collections.9lives.source is required",
        },
      ]);
    });

    it("rejects too many restricted topics (400, restricted_topics)", () => {
      const error = expectInvalid(
        "site-create",
        { ...minimalSite(), restricted_topics: Array.from({ length: 51 }, (_, i) => `t${i}`) },
        "restricted_topics",
      );
      expect(error.message).to.equal("restricted_topics must have at most 50 items");
    });

    it("rejects a retention of 91 days (400, transcript_retention_days)", () => {
      const error = expectInvalid(
        "site-create",
        { ...minimalSite(), transcript_retention_days: 91 },
        "transcript_retention_days",
      );
      expect(error.message).to.equal("transcript_retention_days must be at most 90");
    });

    it("lists every problem and sums them up in the message", () => {
      const error = expectInvalid(
        "site-create",
        { business_description: 7, domain: "ok.example", voice: "" },
        "business_name",
      );
      expect(error.details.errors).to.deep.equal([
        { field: "business_name", message: "business_name is required" },
        { field: "business_description", message: "business_description must be a string" },
        {
          field: "voice",
          message:
            "voice must be a voice name such as alloy (1 to 64 letters, digits, '_', '.' or '-')",
        },
      ]);
      expect(error.message).to.equal("business_name is required (and 2 more problems)");
    });

    it("rejects a body that is not an object", () => {
      const error = expectInvalid("site-create", [1], "");
      expect(error.message).to.equal("The body must be an object");
    });
  });

  describe("site", () => {
    it("fills defaults of a whole site and types it as SiteConfig", () => {
      const site = validateBody<SiteConfig>("site", { ...minimalSite(), site_id: "acme-dental" });
      expect(site.industry).to.equal("general");
      expect(site.lead_capture.fields).to.deep.equal(["name", "email", "phone"]);
    });

    it("requires site_id", () => {
      expectInvalid("site", minimalSite(), "site_id");
    });

    it("rejects an uppercase site_id", () => {
      expectInvalid("site", { ...minimalSite(), site_id: "site_01JD4X9K2M" }, "site_id");
    });
  });

  describe("site-patch", () => {
    it("accepts a partial change and fills no defaults", () => {
      const body = { additional_domains: ["www.example.com"], appearance: { size: "small" } };
      const patch = validateBody<SitePatchRequest>("site-patch", body);
      expect(patch).to.equal(body);
      expect(patch).to.deep.equal({
        additional_domains: ["www.example.com"],
        appearance: { size: "small" },
      });
    });

    it("accepts adapter: null to remove the adapter", () => {
      expect(validateBody<SitePatchRequest>("site-patch", { adapter: null }).adapter).to.equal(
        null,
      );
    });

    it("rejects an adapter that is neither an object nor null", () => {
      const error = expectInvalid("site-patch", { adapter: 3 }, "adapter");
      expect(error.message).to.equal("adapter must be an object or null");
    });

    it("rejects site_id (400, field site_id)", () => {
      expectInvalid("site-patch", { site_id: "other-id" }, "site_id");
    });

    it("rejects an empty patch (400)", () => {
      const error = expectInvalid("site-patch", {}, "");
      expect(error.message).to.equal("The body must have at least 1 field");
    });
  });

  describe("api-key-create", () => {
    it("defaults mode to live", () => {
      const key = validateBody<{ mode: string }>("api-key-create", {
        name: "CI",
        scopes: ["sites:read"],
      });
      expect(key.mode).to.equal("live");
    });

    it("rejects an unknown scope (400, field scopes.0)", () => {
      const error = expectInvalid(
        "api-key-create",
        { name: "CI", scopes: ["sites:admin"] },
        "scopes.0",
      );
      expect(error.message).to.match(/^scopes\.0 must be one of sites:read, sites:write/);
    });

    it("rejects empty and repeated scopes", () => {
      expectInvalid("api-key-create", { name: "CI", scopes: [] }, "scopes");
      expectInvalid(
        "api-key-create",
        { name: "CI", scopes: ["sites:read", "sites:read"] },
        "scopes",
      );
    });

    it("rejects a missing name and a bad mode", () => {
      expectInvalid("api-key-create", { scopes: ["sites:read"] }, "name");
      expectInvalid("api-key-create", { name: "CI", scopes: ["sites:read"], mode: "prod" }, "mode");
    });

    it("checks site_ids", () => {
      expectInvalid(
        "api-key-create",
        { name: "CI", scopes: ["sites:read"], site_ids: ["Not Valid"] },
        "site_ids.0",
      );
    });
  });
});
