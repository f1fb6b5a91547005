/**
 * validateBody on the site, site-patch and api-key-create bodies: defaults filled or not, and
 * refusals as a 400 naming the field. schema-validator-site-create.test.ts covers site-create.
 */
import { expect } from "chai";
import { validateBody } from "./schema-validator.ts";
import type { SiteConfig } from "../types/generated/site.ts";
import type { SitePatchRequest } from "../types/generated/site-patch.ts";
import { expectInvalid, minimalSite } from "../../test/helpers/schema-validator-fixtures.ts";

describe("validateBody", () => {
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
