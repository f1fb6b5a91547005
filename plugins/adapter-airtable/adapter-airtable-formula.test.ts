/**
 * The Airtable adapter's formulas: the literals and references it writes, what it writes for each
 * field kind, and, against the stand-in, that untrusted values are matched literally (quotes,
 * backslashes, newlines, an injection attempt), that a blank field matches no filter, and that a
 * search Airtable formulas cannot express is refused with a clear message.
 */
import { expect } from "chai";
import type { CollectionSpec } from "../../core/search/search-types.ts";
import { BASE_ID } from "../../test/helpers/airtable-products.ts";
import { startAirtableStandin, type AirtableStandin } from "../../test/helpers/airtable-standin.ts";
import {
  fieldReference,
  filterFormula,
  FormulaError,
  numberLiteral,
  stringLiteral,
} from "./airtable-formula.ts";
import { TOKEN, airtableAdapters, query, signal } from "./adapter-airtable-fixtures.ts";

const INJECTION = 'x") , TRUE(), ("';

describe("Airtable adapter formulas", () => {
  describe("literals and references", () => {
    it("escapes backslashes and double quotes and writes newlines as \\n", () => {
      expect(stringLiteral('a"b\\c\nd')).to.equal('"a\\"b\\\\c\\nd"');
      expect(stringLiteral(INJECTION)).to.equal('"x\\") , TRUE(), (\\""');
    });

    it("escapes } in field names and refuses a name ending in a backslash", () => {
      expect(fieldReference("Unit price")).to.equal("{Unit price}");
      expect(fieldReference("a}b}")).to.equal("{a\\}b\\}}");
      expect(() => fieldReference("trailing\\")).to.throw(FormulaError, /backslash/);
    });

    it("writes numbers as plain decimals", () => {
      expect(numberLiteral(1e21)).to.equal("1000000000000000000000");
      expect(numberLiteral(0.1)).to.equal("0.1");
      expect(numberLiteral(-5)).to.equal("-5");
    });
  });

  describe("per field kind", () => {
    const done = { name: "done", kind: "checkbox" as const };
    const price = { name: "price", kind: "number" as const };
    const title = { name: "title", kind: "text" as const };

    it("writes a checkbox filter as the states it keeps", () => {
      const of = (operator: "eq" | "neq" | "gt" | "in", value: unknown) =>
        filterFormula({ field: "done", operator, value } as never, done);
      expect(of("eq", true)).to.equal("{done} = TRUE()");
      expect(of("eq", "false")).to.equal("NOT({done} = TRUE())");
      expect(of("neq", true)).to.equal("NOT({done} = TRUE())");
      expect(of("gt", false)).to.equal("{done} = TRUE()");
      expect(of("in", [true, false])).to.equal("TRUE()");
      expect(of("eq", "yes")).to.equal("FALSE()");
    });

    it("asks for a value first, and compares numbers as numbers", () => {
      expect(filterFormula({ field: "price", operator: "lte", value: "99.5" }, price)).to.equal(
        'AND(LEN({price} & "") > 0, {price} <= 99.5)',
      );
      expect(filterFormula({ field: "price", operator: "eq", value: "cheap" }, price)).to.equal(
        "FALSE()",
      );
      expect(filterFormula({ field: "price", operator: "neq", value: "cheap" }, price)).to.equal(
        'LEN({price} & "") > 0',
      );
    });

    it("compares a list (multiple selects, links) as Airtable's text of it", () => {
      const tags = { name: "tags", kind: "other" as const };
      expect(filterFormula({ field: "tags", operator: "eq", value: "a, b" }, tags)).to.equal(
        'AND(LEN({tags} & "") > 0, ({tags} & "") = "a, b")',
      );
    });

    it("refuses to order text, which Airtable formulas compare only for equality", () => {
      expect(() => filterFormula({ field: "title", operator: "gt", value: "m" }, title)).to.throw(
        FormulaError,
        /"gt" on field "title" is not supported/,
      );
    });
  });

  describe("against the stand-in", () => {
    let standin: AirtableStandin;
    const { airtableAdapter, closeHosts } = airtableAdapters();
    const notes: CollectionSpec = {
      name: "notes",
      source: "Notes",
      searchable_fields: ["title"],
      filterable_fields: ["title", "odd}name", "score"],
      display_fields: ["title", "score"],
    };
    const titles = [INJECTION, "back\\slash", 'quote"inside', "plain", "", "line\nbreak"];

    before(async () => {
      standin = await startAirtableStandin({
        baseId: BASE_ID,
        authorize: (token) => token === TOKEN,
        tables: [
          {
            name: "Notes",
            fields: [
              { name: "title", type: "singleLineText" },
              { name: "odd}name", type: "singleLineText" },
              { name: "score", type: "number" },
            ],
            rows: titles.map((title, index) => ({
              title,
              "odd}name": `odd ${index}`,
              score: title === "" ? null : index,
            })),
          },
        ],
      });
    });
    after(async () => {
      await closeHosts();
      await standin.close();
    });

    const search = async (overrides: Parameters<typeof query>[0]) => {
      const adapter = await airtableAdapter({ baseId: BASE_ID, apiUrl: standin.origin });
      const q = query({ searchFields: ["title"], fields: ["title", "score"], ...overrides });
      return await adapter.search(notes, q, { signal });
    };
    const found = async (overrides: Parameters<typeof query>[0]) => {
      const result = await search(overrides);
      if (!result.success) return expect.fail(result.error);
      return result.items.map((item) => item.title);
    };

    it("matches each untrusted value literally, an injection attempt too", async () => {
      for (const title of titles.filter((t) => t !== "")) {
        expect(
          await found({ filters: [{ field: "title", operator: "eq", value: title }] }),
        ).to.deep.equal([title]);
      }
      expect(
        await found({ filters: [{ field: "title", operator: "contains", value: "\\" }] }),
      ).to.deep.equal(["back\\slash"]);
      expect(await found({ text: '"' })).to.deep.equal([INJECTION, 'quote"inside']);
      expect(await found({ text: '") , TRUE(), ("' })).to.deep.equal([INJECTION]);
      const sent = standin.requestsTo("records").map((r) => r.query.get("filterByFormula"));
      expect(sent).to.include('AND(LEN({title} & "") > 0, {title} = "x\\") , TRUE(), (\\"")');
    });

    it("names a field whose name holds a }", async () => {
      expect(
        await found({ filters: [{ field: "odd}name", operator: "eq", value: "odd 3" }] }),
      ).to.deep.equal(["plain"]);
    });

    it("matches no blank field, not with neq nor with a number below everything", async () => {
      expect(
        await found({ filters: [{ field: "title", operator: "neq", value: "plain" }] }),
      ).to.have.length(4);
      expect(
        await found({ filters: [{ field: "score", operator: "lt", value: 100 }] }),
      ).to.have.length(5);
    });

    it("refuses what a formula cannot express, without asking Airtable", async () => {
      const before = standin.requestsTo("records").length;
      const long = Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(400, "x"));
      expect(
        await search({ filters: [{ field: "title", operator: "in", value: long }] }),
      ).to.deep.equal({
        success: false,
        error:
          "the search is too long for Airtable (URLs must be under 16000 characters): use fewer or shorter values",
      });
      expect(
        await search({ filters: [{ field: "title", operator: "lt", value: "m" }] }),
      ).to.deep.equal({
        success: false,
        error:
          '"lt" on field "title" is not supported: Airtable formulas order numbers and dates, and compare text only for equality',
      });
      expect(standin.requestsTo("records")).to.have.length(before);
    });
  });
});
