/** A site's `appearance.strings`: overrides of the widget's own strings, by the widget's keys. */
import { expect } from "chai";
import type { SiteConfig } from "../types/generated/site.ts";
import { ENGLISH } from "../../widget/src/strings.ts";
import { expectInvalid, minimalSite } from "../../test/helpers/schema-validator-fixtures.ts";
import { schemaFor, validateBody } from "./schema-validator.ts";

const site = (strings: unknown) => ({
  ...minimalSite(),
  site_id: "acme-dental",
  appearance: { strings },
});

describe("appearance.strings", () => {
  it("names exactly the widget's keys", () => {
    const appearance = (schemaFor("site").properties as Record<string, Record<string, unknown>>)
      .appearance as { properties: { strings: { properties: object } } };
    expect(Object.keys(appearance.properties.strings.properties)).to.deep.equal(
      Object.keys(ENGLISH),
    );
  });

  it("accepts overrides of known keys and keeps them", () => {
    const valid = validateBody<SiteConfig>("site", site({ start: "Ask us", not_now: "Later" }));
    expect(valid.appearance.strings).to.deep.equal({ start: "Ask us", not_now: "Later" });
  });

  it("is optional, and adds nothing to a site without overrides", () => {
    const valid = validateBody<SiteConfig>("site", { ...minimalSite(), site_id: "acme-dental" });
    expect(valid.appearance).not.to.have.property("strings");
  });

  it("refuses an unknown key, naming it", () => {
    const error = expectInvalid("site", site({ strat: "Go" }), "appearance.strings.strat");
    expect(error.message).to.equal("appearance.strings.strat is not a known field");
  });

  it("refuses an empty string", () => {
    expectInvalid("site", site({ start: "" }), "appearance.strings.start");
  });

  it("refuses a string over 400 characters", () => {
    const error = expectInvalid(
      "site",
      site({ notice: "a".repeat(401) }),
      "appearance.strings.notice",
    );
    expect(error.message).to.equal("appearance.strings.notice must be at most 400 characters long");
  });

  it("refuses a string that is not a string", () => {
    expectInvalid("site", site({ start: 3 }), "appearance.strings.start");
  });

  it("refuses a visitor_id without {id}, where the visitor's ID goes", () => {
    const error = expectInvalid(
      "site",
      site({ visitor_id: "Your ID is below" }),
      "appearance.strings.visitor_id",
    );
    expect(error.message).to.equal(
      "appearance.strings.visitor_id must contain {id}, where the visitor's ID goes",
    );
  });

  it("refuses a looked_up without {what}, where what the assistant looked up goes", () => {
    const error = expectInvalid(
      "site",
      site({ looked_up: "Looked something up" }),
      "appearance.strings.looked_up",
    );
    expect(error.message).to.equal(
      "appearance.strings.looked_up must contain {what}, where what the assistant looked up goes",
    );
  });

  it("refuses a searched_site without {what}, where the search's words go", () => {
    const error = expectInvalid(
      "site",
      site({ searched_site: "Searched the site" }),
      "appearance.strings.searched_site",
    );
    expect(error.message).to.equal(
      "appearance.strings.searched_site must contain {what}, where the search's words go",
    );
  });

  it("accepts the same overrides in a patch", () => {
    const patch = { appearance: { strings: { start: "Los" } } };
    expect(validateBody("site-patch", patch)).to.deep.equal(patch);
  });

  it("refuses an unknown key in a patch", () => {
    expectInvalid(
      "site-patch",
      { appearance: { strings: { nope: "x" } } },
      "appearance.strings.nope",
    );
  });
});
