/**
 * The templates behind the personality prompt: the general fallback, one for every industry,
 * plugin templates, partials and helpers, and refusing what cannot be placed or parsed.
 */
import { expect } from "chai";
import { buildPersonalityPrompt } from "./prompt.ts";
import { PromptTemplateError, loadPromptTemplates } from "./prompt-templates.ts";
import { NOW, minimalSite } from "./prompt-fixtures.ts";
import { exampleSite } from "../host/testing/example-sites.ts";

describe("personality prompt", () => {
  it("falls back to the general template for an industry without one", () => {
    const prompt = buildPersonalityPrompt(minimalSite({ industry: "bakery" }), { now: NOW });
    expect(prompt.startsWith("You are the voice assistant of Corner Bakery.\n")).to.equal(true);
  });

  it("falls back to the general template for an industry named like an object property", () => {
    const constructor = buildPersonalityPrompt(minimalSite({ industry: "constructor" }), {
      now: NOW,
    });
    expect(constructor.startsWith("You are the voice assistant of Corner Bakery.\n")).to.equal(
      true,
    );
  });

  describe("has a template for every industry the issue names", () => {
    for (const industry of [
      "dental",
      "restaurant",
      "retail",
      "real-estate",
      "legal",
      "home-services",
      "saas",
      "general",
    ]) {
      it(`has a template for ${industry}`, () => {
        const { industries } = loadPromptTemplates();
        expect(industries.has(industry), industry).to.equal(true);
      });
    }
  });

  describe("with a plugin's templates, partials and helpers", () => {
    const pluginTemplates = () =>
      loadPromptTemplates(undefined, [
        {
          templates: { "industries/dental": "{{> clinic-intro}}\nSmile policy: always floss." },
          partials: { "clinic-intro": "WELCOME TO {{shout business_name}}!" },
          helpers: { shout: (value: unknown) => String(value).toUpperCase() },
        },
        { templates: { "industries/bakery": "You sell bread for {{business_name}}." } },
      ]);

    it("lets a plugin override an industry and use its own partial and helper", () => {
      const dental = buildPersonalityPrompt(exampleSite("bright-smiles-dental.yaml"), {
        now: NOW,
        templates: pluginTemplates(),
      });
      expect(
        dental.startsWith("WELCOME TO BRIGHT SMILES DENTAL!\nSmile policy: always floss.\n"),
      ).to.equal(true);
      expect(dental).to.not.include("a dental practice");
      // The layout around it is unchanged.
      expect(dental).to.include("## Hard rules").and.include("  - medical diagnosis");
    });

    it("lets a plugin add an industry", () => {
      const templates = pluginTemplates();
      const bakery = buildPersonalityPrompt(minimalSite({ industry: "bakery" }), {
        now: NOW,
        templates,
      });
      expect(bakery.startsWith("You sell bread for Corner Bakery.\n")).to.equal(true);
      expect(templates.industries.has("bakery")).to.equal(true);
    });

    it("leaves the default set and the global Handlebars without the plugin's templates", () => {
      pluginTemplates();
      // The default set, and the global Handlebars, know nothing of the plugin.
      expect(loadPromptTemplates().industries.has("bakery")).to.equal(false);
    });
  });

  describe("refuses plugin templates it cannot place and templates that do not parse", () => {
    it("refuses a template it cannot place", () => {
      expect(() => loadPromptTemplates(undefined, [{ templates: { greeting: "hi" } }])).to.throw(
        PromptTemplateError,
        /template "greeting"/,
      );
    });

    it("refuses a partial with a reserved name", () => {
      expect(() => loadPromptTemplates(undefined, [{ partials: { industry: "x" } }])).to.throw(
        PromptTemplateError,
        /reserved/,
      );
    });

    it("refuses a helper named like one built into Handlebars", () => {
      expect(() => loadPromptTemplates(undefined, [{ helpers: { if: () => true } }])).to.throw(
        PromptTemplateError,
        /built into Handlebars/,
      );
    });

    it("refuses a template that does not parse, naming it", () => {
      expect(() =>
        loadPromptTemplates(undefined, [{ templates: { "industries/dental": "{{#if x}}open" } }]),
      ).to.throw(PromptTemplateError, /industries\/dental does not parse/);
    });
  });
});
