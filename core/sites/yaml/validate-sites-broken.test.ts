/**
 * validateSiteFiles on the broken fixtures of test/fixtures/broken-sites: each mistake reported
 * once, in file order, at its line and column, naming the field and what is wrong with it.
 */
import { join } from "node:path";
import { expect } from "chai";
import { installedPlugins } from "../../../test/helpers/installed-plugins.ts";
import type { SiteRules } from "../site-rules.ts";
import { validateSiteFiles } from "./validate-sites.ts";
import { repo, short } from "./validate-sites-fixtures.ts";

const brokenDir = join(repo, "test/fixtures/broken-sites");

describe("validateSiteFiles", () => {
  /** The rules `sitevoice validate` applies on a default installation. */
  let rules: SiteRules;
  before(async () => {
    rules = (await installedPlugins({})).rules;
  });

  describe("on the broken fixtures", () => {
    let problems: ReturnType<typeof short>[];

    before(async () => {
      problems = (await validateSiteFiles([brokenDir], { rules })).problems.map(short);
    });

    /** The problems of one fixture, each with a message fragment instead of the whole message. */
    function expectProblems(
      file: string,
      expected: { line: number; column: number; field: string; message: string }[],
    ) {
      const found = problems.filter((p) => p.file === file);
      expect(found.map(({ line, column, field }) => ({ line, column, field }))).to.deep.equal(
        expected.map(({ line, column, field }) => ({ line, column, field })),
      );
      found.forEach((p, i) => expect(p.message).to.include(expected[i]!.message));
    }

    it("reports each mistake once, in file order", () => {
      expect(problems.map((p) => p.file)).to.deep.equal([
        "alias-bomb.yaml",
        "bad-domain.yaml",
        "bad-enum.yaml",
        "duplicate-key.yaml",
        "duplicate-site-id-b.yaml",
        "missing-required-field.yaml",
        "newer-schema-version.yaml",
        "not-a-mapping.yaml",
        "not-utf8.yaml",
        "plain-http-base-url.yaml",
        "port-out-of-range.yaml",
        "reserved-site-id.yaml",
        "secret-in-plain-field.yaml",
        "sql-source.yaml",
        "unknown-adapter-type.yaml",
        "unknown-field.yaml",
        "unknown-industry.yaml",
        "unknown-time-zone.yaml",
        "unknown-voice.yaml",
      ]);
    });

    it("a missing required field, at the mapping that lacks it", () => {
      expectProblems("missing-required-field.yaml", [
        { line: 2, column: 1, field: "business_description", message: "is required" },
      ]);
    });

    it("an unknown field", () => {
      expectProblems("unknown-field.yaml", [
        { line: 6, column: 1, field: "phone_number", message: "is not a known field" },
      ]);
    });

    it("a domain that is not a host name", () => {
      expectProblems("bad-domain.yaml", [
        { line: 8, column: 5, field: "additional_domains.1", message: "must match a host name" },
      ]);
    });

    it("a plain-http baseUrl to another host", () => {
      expectProblems("plain-http-base-url.yaml", [
        { line: 10, column: 5, field: "adapter.config.baseUrl", message: "must use https://" },
      ]);
    });

    it("a value outside an enum", () => {
      expectProblems("bad-enum.yaml", [
        {
          line: 10,
          column: 5,
          field: "adapter.config.queryMode",
          message: "must be one of querystring, client-filter",
        },
      ]);
    });

    it("an industry without a template", () => {
      expectProblems("unknown-industry.yaml", [
        {
          line: 6,
          column: 1,
          field: "industry",
          message: 'no template for industry "veterinary"; known: dental, general,',
        },
      ]);
    });

    it("a voice the configured provider does not have", () => {
      expectProblems("unknown-voice.yaml", [
        {
          line: 7,
          column: 1,
          field: "voice",
          message: '"bogus" is not a voice of the openai voice provider; use one of alloy, ash,',
        },
      ]);
    });

    it("a time zone that is not an IANA zone", () => {
      expectProblems("unknown-time-zone.yaml", [
        {
          line: 6,
          column: 1,
          field: "timezone",
          message: "must be an IANA time-zone name such as Europe/Berlin, or UTC",
        },
      ]);
    });

    it("a port out of range, at the list item", () => {
      expectProblems("port-out-of-range.yaml", [
        {
          line: 8,
          column: 5,
          field: "additional_domains.1",
          message: "an optional :port from 1 to 65535",
        },
      ]);
    });

    it("a SQL collection source that is not a table name", () => {
      expectProblems("sql-source.yaml", [
        {
          line: 13,
          column: 7,
          field: "adapter.collections.boards.source",
          message: "must be a table or view name such as products or catalog.products",
        },
      ]);
    });

    it("a site_id that is a path of the API", () => {
      expectProblems("reserved-site-id.yaml", [
        { line: 3, column: 1, field: "site_id", message: "is reserved: it is (or will be) a path" },
      ]);
    });

    it("a site_id used by an earlier file, on the later one", () => {
      expectProblems("duplicate-site-id-a.yaml", []);
      expectProblems("duplicate-site-id-b.yaml", [
        {
          line: 2,
          column: 1,
          field: "site_id",
          message: 'site_id "broken-duplicate-id" is already used by ',
        },
      ]);
      const [problem] = problems.filter((p) => p.file === "duplicate-site-id-b.yaml");
      expect(problem?.message).to.match(/duplicate-site-id-a\.yaml$/);
    });

    it("a duplicate YAML key, at the second one", () => {
      expectProblems("duplicate-key.yaml", [
        { line: 9, column: 3, field: "appearance.color", message: 'duplicate key "color"' },
      ]);
    });

    it("an alias bomb, at its first alias", () => {
      expectProblems("alias-bomb.yaml", [
        { line: 7, column: 10, field: "", message: "too many YAML aliases (possible alias bomb)" },
      ]);
    });

    it("a file that is not UTF-8, at the bad byte", () => {
      expectProblems("not-utf8.yaml", [
        { line: 3, column: 19, field: "", message: "file is not UTF-8 text (byte 0xE9)" },
      ]);
    });

    it("a list at the top", () => {
      expectProblems("not-a-mapping.yaml", [
        { line: 2, column: 1, field: "", message: "must be a YAML mapping" },
      ]);
    });

    it("a newer schema_version, without checking the rest against today's schema", () => {
      expectProblems("newer-schema-version.yaml", [
        {
          line: 2,
          column: 1,
          field: "schema_version",
          message: "schema_version 2 is newer than this service understands (1)",
        },
      ]);
    });

    it("a secret reference in a field that is not sealed", () => {
      expectProblems("secret-in-plain-field.yaml", [
        {
          line: 13,
          column: 7,
          field: "adapter.config.headers.X-Api-Key",
          message: "${env:OPEN_BOOKS_KEY} is only resolved in secret fields",
        },
      ]);
    });

    it("an unknown adapter type", () => {
      expectProblems("unknown-adapter-type.yaml", [
        {
          line: 7,
          column: 3,
          field: "adapter.type",
          message: 'no adapter plugin serves type "notion"; known: airtable, mysql, postgres, rest',
        },
      ]);
    });
  });
});
