/**
 * The agent's `search_site` tool: offered only to a site with indexed passages, beside the other
 * tools, with parameters the model cannot take past the endpoint's bounds.
 */
import { expect } from "chai";
import {
  buildVoiceTools,
  SCROLL_TO,
  SEARCH_DATABASE,
  SEARCH_SITE,
  SUBMIT_LEAD,
  REQUEST_CALLBACK,
} from "./voice-tools.ts";
import { compile, exampleSites, schemaOf, toolNamed } from "./voice-tools-fixtures.ts";

describe("voice tools: search_site", () => {
  const sites = exampleSites();
  const searchSite = () =>
    toolNamed(buildVoiceTools(sites.dental, { knowledge: true }), SEARCH_SITE);

  it("is offered after search_database when the site has knowledge", () => {
    expect(buildVoiceTools(sites.dental, { knowledge: true }).map((t) => t.name)).to.deep.equal([
      SEARCH_DATABASE,
      SEARCH_SITE,
      SUBMIT_LEAD,
      REQUEST_CALLBACK,
      SCROLL_TO,
    ]);
  });

  it("is offered to a site without collections when it has knowledge", () => {
    const { adapter: _adapter, ...withoutAdapter } = structuredClone(sites.shop);
    expect(buildVoiceTools(withoutAdapter, { knowledge: true }).map((t) => t.name)).to.deep.equal([
      SEARCH_SITE,
      SCROLL_TO,
    ]);
  });

  it("is not offered when the site has no knowledge", () => {
    expect(buildVoiceTools(sites.dental, { knowledge: false }).map((t) => t.name)).to.not.include(
      SEARCH_SITE,
    );
  });

  it("is not offered when nothing is said of the site's knowledge", () => {
    expect(buildVoiceTools(sites.dental).map((t) => t.name)).to.not.include(SEARCH_SITE);
  });

  it("takes a query and a limit of 1 to 5, the query required", () => {
    const { properties, required } = schemaOf(searchSite());
    expect(Object.keys(properties)).to.deep.equal(["query", "limit"]);
    expect(properties.query).to.include({ type: "string", minLength: 1, maxLength: 500 });
    expect(properties.limit).to.include({ type: "integer", minimum: 1, maximum: 5 });
    expect(required).to.deep.equal(["query"]);
  });

  it("accepts a question with a limit", () => {
    expect(compile(searchSite())({ query: "are you open on sundays", limit: 2 })).to.equal(true);
  });

  it("refuses a limit of 6", () => {
    expect(compile(searchSite())({ query: "hours", limit: 6 })).to.equal(false);
  });

  it("refuses a query of 501 characters", () => {
    expect(compile(searchSite())({ query: "a".repeat(501) })).to.equal(false);
  });

  it("refuses a field it does not take", () => {
    expect(compile(searchSite())({ query: "hours", collection: "pages" })).to.equal(false);
  });

  it("tells the model to use it for questions about the business and to answer from it alone", () => {
    const { description } = searchSite();
    expect(description).to.include("Bright Smiles Dental");
    expect(description).to.match(/answer only from/i);
    expect(description).to.include("section_id");
  });

  describe("scroll_to beside it", () => {
    const listed = ["opening-hours", "parking"];

    it("keeps to the listed ids when they are all the site's", () => {
      const tools = buildVoiceTools(sites.dental, {
        knowledge: true,
        sectionIds: listed,
        allSectionIds: true,
      });
      const scrollTo = toolNamed(tools, SCROLL_TO);
      expect(schemaOf(scrollTo).properties.section_id?.enum).to.deep.equal(listed);
      expect(compile(scrollTo)({ section_id: "insurance" })).to.equal(false);
    });

    it("takes a passage's section id when the site had more ids than were listed", () => {
      const tools = buildVoiceTools(sites.dental, {
        knowledge: true,
        sectionIds: listed,
        allSectionIds: false,
      });
      const sectionId = schemaOf(toolNamed(tools, SCROLL_TO)).properties.section_id;
      expect(sectionId).to.not.have.property("enum");
      expect(sectionId?.description).to.include(SEARCH_SITE).and.include("opening-hours, parking");
      expect(compile(toolNamed(tools, SCROLL_TO))({ section_id: "insurance" })).to.equal(true);
    });

    it("keeps to the listed ids, however many the site had, without search_site", () => {
      const tools = buildVoiceTools(sites.dental, { sectionIds: listed, allSectionIds: false });
      expect(schemaOf(toolNamed(tools, SCROLL_TO)).properties.section_id?.enum).to.deep.equal(
        listed,
      );
    });
  });
});
