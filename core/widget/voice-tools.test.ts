import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { expect } from "chai";
import { buildVoiceTools, SCROLL_TO, SEARCH_DATABASE, SUBMIT_LEAD } from "./voice-tools.ts";
import type { VoiceTool } from "../host/plugin.ts";
import { allowedFields, checkSearch, collectionOf } from "../search/check-search.ts";
import { FILTER_OPERATORS, MAX_SEARCH_LIMIT } from "../search/search-types.ts";
import type { SearchParams } from "../search/search-types.ts";
import type { SiteConfig } from "../sites/site-types.ts";
import { readSiteFile } from "../sites/yaml/site-file.ts";
import { validateBody } from "../validation/schema-validator.ts";

/** An example site of sites/, with defaults filled in as the service stores it. */
function exampleSite(file: string): SiteConfig {
  const parsed = readSiteFile(path.resolve("sites", file));
  expect(parsed.problems, file).to.deep.equal([]);
  return validateBody<SiteConfig>("site-create", parsed.data);
}

/** Strict: an unknown keyword or a malformed schema fails to compile. */
const ajv = new Ajv2020({ strict: true, allErrors: true });
const compile = (tool: VoiceTool): ValidateFunction => ajv.compile(tool.parameters);

/** The JSON Schema keywords realtime function parameters may use (see voice-tools.ts). */
const PORTABLE_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "enum",
  "items",
  "description",
  "additionalProperties",
  "anyOf",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
]);

/** Every keyword used anywhere in `schema` (property names are not keywords). */
function keywordsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) keywordsOf(item, found);
    return found;
  }
  if (typeof schema !== "object" || schema === null) return found;
  for (const [key, value] of Object.entries(schema)) {
    found.add(key);
    if (key === "properties") {
      for (const sub of Object.values(value as object)) keywordsOf(sub, found);
    } else if (key !== "enum" && key !== "required") {
      keywordsOf(value, found);
    }
  }
  return found;
}

const toolNamed = (tools: VoiceTool[], name: string): VoiceTool => {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.name)}`);
  return tool;
};

type Schema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
const schemaOf = (tool: VoiceTool) => tool.parameters as Schema;
const filterItemOf = (tool: VoiceTool) =>
  (schemaOf(tool).properties.filters as { items: Schema }).items;

type FilterValue = NonNullable<SearchParams["filters"]>[number]["value"];

/** A value the operator takes, for a field whose type the test does not know. */
function valueFor(operator: string): FilterValue {
  if (operator === "in") return ["a", 2, true];
  if (operator === "contains") return "text";
  return operator === "eq" || operator === "neq" ? "text" : 5;
}

/** Whether the query endpoint takes `call` for `site`: its schema, then the collection's fields. */
function serviceAccepts(site: SiteConfig, call: unknown): boolean {
  try {
    const params = validateBody<SearchParams>("search-params", structuredClone(call));
    checkSearch(collectionOf(site.adapter?.collections ?? {}, params.collection), params);
    return true;
  } catch {
    return false;
  }
}

describe("voice tools", () => {
  const sites = {
    dental: exampleSite("bright-smiles-dental.yaml"),
    trattoria: exampleSite("luigis-trattoria.yaml"),
    shop: exampleSite("nordic-home-shop.yaml"),
  };

  it("offers search, lead capture when enabled, and scrolling", () => {
    expect(buildVoiceTools(sites.dental).map((t) => t.name)).to.deep.equal([
      SEARCH_DATABASE,
      SUBMIT_LEAD,
      SCROLL_TO,
    ]);
    expect(buildVoiceTools(sites.trattoria).map((t) => t.name)).to.deep.equal([
      SEARCH_DATABASE,
      SUBMIT_LEAD,
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
      SCROLL_TO,
    ]);
    const empty = structuredClone(sites.dental);
    if (empty.adapter) empty.adapter.collections = {};
    expect(buildVoiceTools(empty).map((t) => t.name)).to.not.include(SEARCH_DATABASE);
  });

  for (const site of Object.values(sites)) {
    describe(`for ${site.site_id}`, () => {
      const tools = buildVoiceTools(site, { sectionIds: ["pricing", "contact"] });

      for (const tool of tools) {
        it(`gives ${tool.name} a function shape and a parameters schema that compiles`, () => {
          expect(Object.keys(tool).sort(), tool.name).to.deep.equal([
            "description",
            "name",
            "parameters",
            "type",
          ]);
          expect(tool.type).to.equal("function");
          expect(tool.name).to.match(/^[a-zA-Z0-9_-]{1,64}$/);
          expect(tool.description.length, tool.name).to.be.greaterThan(20);
          expect(tool.parameters.type, tool.name).to.equal("object");
          expect(tool.parameters, tool.name).to.not.have.any.keys("anyOf", "oneOf", "allOf");
          expect(() => compile(tool), tool.name).to.not.throw();
          const unportable = [...keywordsOf(tool.parameters)].filter(
            (k) => !PORTABLE_KEYWORDS.has(k),
          );
          expect(unportable, tool.name).to.deep.equal([]);
        });
      }

      it("names the site's collections and the union of their allowed fields", () => {
        const search = toolNamed(tools, SEARCH_DATABASE);
        const collections = site.adapter?.collections ?? {};
        const names = Object.keys(collections);
        const fields = [
          ...new Set(
            Object.entries(collections).flatMap(([name, c]) => allowedFields({ name, ...c })),
          ),
        ].sort();
        const { properties, required } = schemaOf(search);
        expect(required).to.deep.equal(["collection"]);
        expect(properties.collection?.enum).to.deep.equal(names);
        // Every collection's name and description, all checked before failing.
        const description = String(properties.collection?.description);
        expect(
          names.filter((name) => !description.includes(`${name}:`)),
          "collection names not in the description",
        ).to.deep.equal([]);
        expect(
          Object.values(collections)
            .flatMap((collection) => (collection.description ? [collection.description] : []))
            .filter((text) => !description.includes(text)),
          "collection descriptions not in the description",
        ).to.deep.equal([]);
        const item = filterItemOf(search);
        expect(item.properties.field?.enum).to.deep.equal(fields);
        expect(item.properties.operator?.enum).to.deep.equal([...FILTER_OPERATORS]);
        expect(item.required).to.deep.equal(["field", "operator", "value"]);
        expect(properties.sort_by?.enum).to.deep.equal(fields);
        expect(properties.sort_direction?.enum).to.deep.equal(["asc", "desc"]);
        expect(properties.limit).to.include({
          type: "integer",
          minimum: 1,
          maximum: MAX_SEARCH_LIMIT,
        });
        expect(properties.query?.type).to.equal("string");
      });

      describe("builds search_database calls that the query endpoint accepts", () => {
        const validate = () => compile(toolNamed(tools, SEARCH_DATABASE));
        for (const [name, spec] of Object.entries(site.adapter?.collections ?? {})) {
          for (const field of allowedFields({ name, ...spec })) {
            for (const operator of FILTER_OPERATORS) {
              it(`accepts a ${operator} filter on ${name}.${field}, sorted by it`, () => {
                const check = validate();
                const call = {
                  collection: name,
                  query: "blue",
                  filters: [{ field, operator, value: valueFor(operator) }],
                  sort_by: field,
                  sort_direction: "desc",
                  limit: MAX_SEARCH_LIMIT,
                };
                expect(check(call), JSON.stringify(check.errors)).to.equal(true);
                expect(serviceAccepts(site, call), JSON.stringify(call)).to.equal(true);
              });
            }
          }

          it(`accepts a call naming only the collection ${name}`, () => {
            expect(validate()({ collection: name })).to.equal(true);
            expect(serviceAccepts(site, { collection: name })).to.equal(true);
          });
        }
      });

      describe("refuses calls the query endpoint would refuse", () => {
        const [name] = Object.keys(site.adapter?.collections ?? {});
        const filter = (f: Record<string, unknown>) => ({ collection: name, filters: [f] });
        for (const call of [
          {},
          { collection: "nope" },
          { collection: name, limit: MAX_SEARCH_LIMIT + 1 },
          { collection: name, limit: 0 },
          { collection: name, sort_direction: "up" },
          { collection: name, sort_by: "not_a_field" },
          { collection: name, extra: true },
          filter({ field: "not_a_field", operator: "eq", value: 1 }),
          filter({ field: "name", operator: "like", value: "x" }),
          filter({ field: "name", operator: "eq" }),
          filter({ field: "name", operator: "eq", value: { nested: true } }),
          filter({ field: "name", operator: "in", value: [] }),
        ]) {
          it(`refuses ${JSON.stringify(call)}`, () => {
            const validate = compile(toolNamed(tools, SEARCH_DATABASE));
            expect(validate(call), JSON.stringify(call)).to.equal(false);
            expect(serviceAccepts(site, call), JSON.stringify(call)).to.equal(false);
          });
        }
      });
    });
  }

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

  it("leaves filters and sort_by out when no collection lists a field", () => {
    const site = structuredClone(sites.dental);
    site.adapter = {
      type: "rest",
      config: { baseUrl: "https://api.example.com", queryMode: "querystring" },
      collections: {
        bare: { source: "/bare", searchable_fields: [], filterable_fields: [], display_fields: [] },
      },
    };
    const search = toolNamed(buildVoiceTools(site), SEARCH_DATABASE);
    expect(Object.keys(schemaOf(search).properties)).to.deep.equal(["collection", "limit"]);
    expect(() => compile(search)).to.not.throw();
  });
});
