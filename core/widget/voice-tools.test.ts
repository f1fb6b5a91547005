/**
 * The voice tools a site's assistant is offered: which ones, the fields submit_lead asks for, and
 * the sections scroll_to takes. voice-tools-search.test.ts covers search_database.
 */
import { expect } from "chai";
import {
  buildVoiceTools,
  REQUEST_CALLBACK,
  SCROLL_TO,
  SEARCH_DATABASE,
  SUBMIT_LEAD,
} from "./voice-tools.ts";
import { compile, exampleSites, schemaOf, toolNamed } from "./voice-tools-fixtures.ts";

describe("voice tools", () => {
  const sites = exampleSites();

  it("offers search, lead capture when enabled, and scrolling", () => {
    expect(buildVoiceTools(sites.dental).map((t) => t.name)).to.deep.equal([
      SEARCH_DATABASE,
      SUBMIT_LEAD,
      REQUEST_CALLBACK,
      SCROLL_TO,
    ]);
    expect(buildVoiceTools(sites.trattoria).map((t) => t.name)).to.deep.equal([
      SEARCH_DATABASE,
      SUBMIT_LEAD,
      REQUEST_CALLBACK,
      SCROLL_TO,
    ]);
    // The shop turned lead capture off.
    expect(buildVoiceTools(sites.shop).map((t) => t.name)).to.deep.equal([
      SEARCH_DATABASE,
      SCROLL_TO,
    ]);
  });

  it("leaves search_database out when the site has no collections", () => {
    const { adapter: _adapter, ...withoutAdapter } = structuredClone(sites.dental);
    expect(buildVoiceTools(withoutAdapter).map((t) => t.name)).to.deep.equal([
      SUBMIT_LEAD,
      REQUEST_CALLBACK,
      SCROLL_TO,
    ]);
    const empty = structuredClone(sites.dental);
    if (empty.adapter) empty.adapter.collections = {};
    expect(buildVoiceTools(empty).map((t) => t.name)).to.not.include(SEARCH_DATABASE);
  });

  it("asks for the configured lead fields, as strings, and says an email or phone is required", () => {
    const lead = toolNamed(buildVoiceTools(sites.dental), SUBMIT_LEAD);
    const { properties, required } = schemaOf(lead);
    expect(Object.keys(properties)).to.deep.equal(["name", "email", "phone", "message"]);
    expect(Object.values(properties).map((property) => property.type)).to.deep.equal(
      Object.keys(properties).map(() => "string"),
    );
    expect(required).to.equal(undefined);
    expect(lead.description).to.match(/email or a phone/);
  });

  it("asks each site for its own lead fields", () => {
    const trattoria = schemaOf(toolNamed(buildVoiceTools(sites.trattoria), SUBMIT_LEAD));
    expect(Object.keys(trattoria.properties)).to.deep.equal(["name", "phone", "message"]);
  });

  it("takes a lead with the asked fields and refuses a field it does not ask for", () => {
    const validate = compile(toolNamed(buildVoiceTools(sites.dental), SUBMIT_LEAD));
    expect(validate({ name: "Ada", email: "ada@example.com" })).to.equal(true);
    expect(validate({ name: "Ada", address: "Elm St" })).to.equal(false);
  });

  it("still offers email and phone when a site asks for neither, since a lead needs one", () => {
    const site = structuredClone(sites.dental);
    site.lead_capture.fields = ["name", "message"];
    const { properties } = schemaOf(toolNamed(buildVoiceTools(site), SUBMIT_LEAD));
    expect(Object.keys(properties)).to.deep.equal(["name", "email", "phone", "message"]);
  });

  it("limits scroll_to to the page's sections when they are known", () => {
    const known = toolNamed(
      buildVoiceTools(sites.shop, { sectionIds: ["sofas", "lamps", "sofas"] }),
      SCROLL_TO,
    );
    expect(schemaOf(known).properties.section_id?.enum).to.deep.equal(["sofas", "lamps"]);
    expect(schemaOf(known).required).to.deep.equal(["section_id"]);
    expect(compile(known)({ section_id: "rugs" })).to.equal(false);
  });

  for (const sectionIds of [undefined, []]) {
    it(`leaves scroll_to open to any id when the sections are ${JSON.stringify(sectionIds) ?? "not given"}`, () => {
      const free = toolNamed(buildVoiceTools(sites.shop, { sectionIds }), SCROLL_TO);
      const sectionId = schemaOf(free).properties.section_id;
      expect(sectionId).to.not.have.property("enum");
      expect(sectionId?.description).to.match(/id attribute/);
      expect(compile(free)({ section_id: "rugs" })).to.equal(true);
    });
  }
});
