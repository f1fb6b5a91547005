/**
 * Each example site's voice tools as realtime functions with portable parameter schemas, and its
 * search_database tool: the site's collections and fields, in calls the query endpoint accepts or
 * refuses alike.
 */
import { expect } from "chai";
import { buildVoiceTools, SEARCH_DATABASE } from "./voice-tools.ts";
import type { VoiceTool } from "../host/plugin.ts";
import { allowedFields, checkSearch, collectionOf } from "../search/check-search.ts";
import { FILTER_OPERATORS, MAX_SEARCH_LIMIT } from "../search/search-types.ts";
import type { SearchParams } from "../search/search-types.ts";
import type { SiteConfig } from "../sites/site-types.ts";
import { validateBody } from "../validation/schema-validator.ts";
import { compile, exampleSites, schemaOf, toolNamed, type Schema } from "./voice-tools-fixtures.ts";

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
  const sites = exampleSites();

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
