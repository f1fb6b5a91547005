/**
 * The Airtable stand-in itself (test/helpers/airtable-standin.ts), held to Airtable's contract
 * rather than to what the adapter emits: formulas written by hand as Airtable's reference
 * writes them (escapes, blanks, FIND's 0, dates), injection attempts and formulas Airtable
 * refuses, pagination by offset, empty values left out, and its errors' shapes.
 */
import { expect } from "chai";
import { parseFormula } from "../../test/helpers/airtable-formula.ts";
import { evaluate, type FormulaValue } from "../../test/helpers/airtable-formula-functions.ts";
import { startAirtableStandin, type AirtableStandin } from "../../test/helpers/airtable-standin.ts";

const BASE = "appStandinTest001";
const TOKEN = "standin-token";

describe("Airtable stand-in", () => {
  describe("formulas", () => {
    const record: Record<string, FormulaValue> = {
      Name: 'Say "hi" \\ bye',
      Price: 12.5,
      Empty: null,
      "a}b": "brace",
    };
    const value = (formula: string) =>
      evaluate(parseFormula(formula), (name) => (name in record ? record[name]! : null));

    it("reads escaped quotes and backslashes in text, and \\} in field names", () => {
      expect(value('{Name} = "Say \\"hi\\" \\\\ bye"')).to.equal(true);
      expect(value("{Name} = 'Say \"hi\" \\\\ bye'")).to.equal(true);
      expect(value('"a\\nb"')).to.equal("a\nb");
      expect(value("{a\\}b}")).to.equal("brace");
      expect(value("Price * 2")).to.equal(25);
    });

    it("keeps an escaped injection attempt inside its string", () => {
      expect(value('{Name} = "x\\") , TRUE(), (\\""')).to.equal(false);
      expect(value('OR({Name} = "x\\") , TRUE(), (\\"")')).to.equal(false);
    });

    it("refuses what Airtable cannot parse, an unescaped injection among it", () => {
      for (const bad of [
        '{Name} = "x") , TRUE(), ("',
        '{Name} = "unterminated',
        "{Name",
        "AND(",
        "NOPE(1)",
        "NOT(1, 2)",
        "{Name} ==",
        "1 2",
        "{}",
      ]) {
        expect(() => parseFormula(bad), bad).to.throw();
      }
    });

    it("compares a blank as 0 next to a number and as empty text next to text", () => {
      expect(value("{Empty} < 5")).to.equal(true);
      expect(value("{Empty} = 0")).to.equal(true);
      expect(value('{Empty} = ""')).to.equal(true);
      expect(value('{Empty} != "x"')).to.equal(true);
      expect(value('LEN({Empty} & "")')).to.equal(0);
      expect(value('LEN({Price} & "")')).to.equal(4);
    });

    it("gives FIND's position, 0 when absent, and SEARCH blank when absent", () => {
      expect(value('FIND("bye", {Name})')).to.equal(12);
      expect(value('FIND("BYE", {Name})')).to.equal(0);
      expect(value('FIND("BYE", UPPER({Name}))')).to.equal(12);
      expect(value('SEARCH("nope", {Name})')).to.equal(null);
    });

    it("compares dates up to a unit, and formats them", () => {
      expect(
        value('IS_SAME("2024-01-20", DATETIME_PARSE("2024-01-20T23:00:00Z"), "day")'),
      ).to.equal(true);
      expect(value('IS_SAME("2024-01-20", DATETIME_PARSE("2024-01-20T23:00:00Z"))')).to.equal(
        false,
      );
      expect(value('IS_BEFORE("2024-01-19", "2024-01-20")')).to.equal(true);
      expect(value('IS_AFTER("2024-01-19", "2024-01-20")')).to.equal(false);
      expect(value('DATETIME_FORMAT("2024-01-20T08:05:00Z", "YYYY-MM-DD HH:mm")')).to.equal(
        "2024-01-20 08:05",
      );
      expect(() => value('IS_SAME({Name}, "2024-01-20")')).to.throw();
    });
  });

  describe("over HTTP", () => {
    let standin: AirtableStandin;
    before(async () => {
      standin = await startAirtableStandin({
        baseId: BASE,
        authorize: (token) => token === TOKEN,
        tables: [
          {
            name: "Items",
            fields: [
              { name: "Name", type: "singleLineText" },
              { name: "Done", type: "checkbox" },
              { name: "Score", type: "number" },
            ],
            rows: Array.from({ length: 7 }, (_, i) => ({
              Name: `item ${i}`,
              Done: i % 2 === 0,
              Score: i === 3 ? null : i,
            })),
          },
        ],
      });
    });
    after(() => standin.close());

    /** Airtable's answers, as far as these tests read them. */
    interface Body {
      records: { fields: Record<string, unknown> }[];
      offset?: string;
      error: { type: string; message: string };
      tables: {
        name: string;
        primaryFieldId: string;
        fields: { id: string; name: string; type: string }[];
      }[];
      scopes: string[];
    }
    const get = async (path: string, token = TOKEN) => {
      const response = await fetch(`${standin.origin}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: (await response.json()) as Body };
    };
    const list = (query: string) => get(`/v0/${BASE}/Items?${query}`);

    it("pages by offset and leaves empty values and false checkboxes out", async () => {
      const first = await list("pageSize=3");
      expect(first.body.records.map((r) => r.fields)).to.deep.equal([
        { Name: "item 0", Done: true, Score: 0 },
        { Name: "item 1", Score: 1 },
        { Name: "item 2", Done: true, Score: 2 },
      ]);
      expect(first.body.offset).to.match(/^itr[0-9a-z]{14}\/rec[0-9a-z]{14}$/);
      const second = await list(`pageSize=3&offset=${encodeURIComponent(first.body.offset!)}`);
      expect(second.body.records.map((r) => r.fields.Name)).to.deep.equal([
        "item 3",
        "item 4",
        "item 5",
      ]);
      const third = await list(`pageSize=3&offset=${encodeURIComponent(second.body.offset!)}`);
      expect(third.body.records).to.have.length(1);
      expect(third.body).not.to.have.property("offset");
    });

    it("filters, sorts (blanks first ascending) and limits the fields", async () => {
      const formula = encodeURIComponent("AND(NOT({Done}), {Score} < 4)");
      const { body } = await list(
        `filterByFormula=${formula}&sort[0][field]=Score&sort[0][direction]=asc&fields[]=Name`,
      );
      expect(body.records.map((r) => r.fields)).to.deep.equal([
        { Name: "item 3" },
        { Name: "item 1" },
      ]);
    });

    it("answers Airtable's errors in Airtable's shapes", async () => {
      expect(
        await list(`filterByFormula=${encodeURIComponent('{Name} = "x") , TRUE(), ("')}`),
      ).to.deep.equal({
        status: 422,
        body: {
          error: {
            type: "INVALID_FILTER_BY_FORMULA",
            message:
              "The formula for filtering records is invalid: Invalid formula. Please check your formula text.",
          },
        },
      });
      const unknown = await list(`filterByFormula=${encodeURIComponent("{Nope} = 1")}`);
      expect(unknown.body.error.message).to.match(/Unknown field names: Nope$/);
      expect((await list("fields[]=Nope")).body.error.type).to.equal("UNKNOWN_FIELD_NAME");
      expect((await list("sort[0][field]=Nope")).body.error.type).to.equal("UNKNOWN_FIELD_NAME");
      expect((await list("pageSize=101")).status).to.equal(422);
      expect((await list("offset=itrmadeup/recmadeup")).body.error.type).to.equal(
        "LIST_RECORDS_ITERATOR_NOT_AVAILABLE",
      );
      expect((await get(`/v0/${BASE}/Nope`)).body.error.type).to.equal("TABLE_NOT_FOUND");
      expect(await get(`/v0/appOtherBase00001/Items`)).to.deep.equal({
        status: 404,
        body: { error: "NOT_FOUND" },
      });
      expect((await get(`/v0/${BASE}/Items`, "wrong")).body.error.type).to.equal(
        "AUTHENTICATION_REQUIRED",
      );
      standin.fail({ status: 429, times: 1 });
      expect((await list("")).body).to.deep.equal({
        errors: [
          { error: "RATE_LIMIT_REACHED", message: "Rate limit exceeded. Please try again later" },
        ],
      });
      expect((await list("")).status).to.equal(200);
    });

    it("describes the base's tables and the token", async () => {
      const { body } = await get(`/v0/meta/bases/${BASE}/tables`);
      const table = body.tables[0]!;
      expect(table.name).to.equal("Items");
      expect(table.primaryFieldId).to.equal(table.fields[0]!.id);
      expect(table.fields.map((f) => [f.name, f.type])).to.deep.equal([
        ["Name", "singleLineText"],
        ["Done", "checkbox"],
        ["Score", "number"],
      ]);
      expect((await get("/v0/meta/whoami")).body.scopes).to.deep.equal([
        "data.records:read",
        "schema.bases:read",
      ]);
      expect(standin.requestsTo("whoami")).to.have.length(1);
    });
  });
});
