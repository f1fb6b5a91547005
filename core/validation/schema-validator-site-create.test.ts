/**
 * validateBody on a site-create body: the defaults it fills, and each refusal as a 400 naming the
 * field, with every problem listed.
 */
import { expect } from "chai";
import { validateBody } from "./schema-validator.ts";
import type { SiteCreateRequest } from "../types/generated/site-create.ts";
import {
  expectInvalid,
  minimalSite,
  rejection,
} from "../../test/helpers/schema-validator-fixtures.ts";

const withRestAdapter = (baseUrl: string) => ({
  ...minimalSite(),
  adapter: {
    type: "rest",
    config: { baseUrl },
    collections: { services: { source: "/services", searchable_fields: ["name"] } },
  },
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
          code: "invalid_request",
        },
        {
          field: "adapter.collections.9lives.source",
          message: "adapter.collections.9lives.source is required",
          code: "invalid_request",
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
        { field: "business_name", message: "business_name is required", code: "invalid_request" },
        {
          field: "business_description",
          message: "business_description must be a string",
          code: "invalid_request",
        },
        {
          field: "voice",
          message:
            "voice must be a voice name such as alloy (1 to 64 letters, digits, '_', '.' or '-')",
          code: "invalid_request",
        },
      ]);
      expect(error.message).to.equal("business_name is required (and 2 more problems)");
    });

    it("rejects a body that is not an object", () => {
      const error = expectInvalid("site-create", [1], "");
      expect(error.message).to.equal("The body must be an object");
    });
  });
});
