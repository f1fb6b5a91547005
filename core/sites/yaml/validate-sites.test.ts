import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { installedPlugins } from "../../../test/helpers/installed-plugins.ts";
import type { SiteRules } from "../site-rules.ts";
import { listIndustries } from "./industries.ts";
import { validateSiteFiles } from "./validate-sites.ts";
import type { SiteProblem } from "./site-file.ts";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const sitesDir = join(repo, "sites");
const brokenDir = join(repo, "test/fixtures/broken-sites");
const industries = listIndustries();

/** A problem as the tests write it: the file's name instead of its full path. */
const short = ({ path, ...rest }: SiteProblem) => ({ file: basename(path), ...rest });

describe("validateSiteFiles", () => {
  /** The rules `sitevoice validate` applies on a default installation. */
  let rules: SiteRules;
  before(async () => {
    rules = (await installedPlugins({})).rules;
  });

  it("finds the industry templates", () => {
    expect([...industries]).to.deep.equal([
      "dental",
      "general",
      "home-services",
      "legal",
      "real-estate",
      "restaurant",
      "retail",
      "saas",
    ]);
  });

  it("accepts the example sites", async () => {
    const { files, problems } = await validateSiteFiles([sitesDir], { rules });
    expect(problems.map(short)).to.deep.equal([]);
    expect(files.map((f) => basename(f.path))).to.deep.equal([
      "bright-smiles-dental.yaml",
      "luigis-trattoria.yaml",
      "nordic-home-shop.yaml",
    ]);
    const ids = files.map((f) => f.data?.site_id);
    expect(ids).to.deep.equal(["bright-smiles-dental", "luigis-trattoria", "nordic-home-shop"]);
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
          message: 'no adapter plugin serves type "airtable"; known: mysql, postgres, rest',
        },
      ]);
    });
  });

  describe("on files written for the test", () => {
    let dir: string;
    const site = (extra: string) =>
      `business_name: A\nbusiness_description: ""\ndomain: a.example\n${extra}`;

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), "sv-sites-"));
    });

    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("reports every problem of a file, sorted by position", async () => {
      const file = join(dir, "many.yaml");
      await writeFile(
        file,
        [
          "industry: astrology", // 1
          "business_name: A", // 2
          "domain: http://a.example", // 3
          "voice: two words", // 4
          "adapter:", // 5 (queryMode may be left out: it has a default)
          "  type: rest", // 6
          "  config:", // 7
          "    baseUrl: http://a.example", // 8
          "  collections:", // 9
          "    items:", // 10
          "      source: /items", // 11
          "      searchable_fields: [name, sku]", // 12
          "      filterable_fields: []", // 13
          "      display_fields: [name]", // 14
          "",
        ].join("\n"),
      );
      const { problems } = await validateSiteFiles([file], { rules });
      expect(problems.map(({ line, column, field }) => [line, column, field])).to.deep.equal([
        [1, 1, "business_description"],
        [1, 1, "industry"],
        [3, 1, "domain"],
        [4, 1, "voice"],
        [8, 5, "adapter.config.baseUrl"],
      ]);
    });

    it("checks an adapter plugin's own config schema", async () => {
      const { plugins, rules } = await installedPlugins({
        SITEVOICE_PLUGINS: "sitevoice-adapter-example",
      });
      const good = join(dir, "good.yml");
      const bad = join(dir, "bad.yaml");
      const adapter = (config: string) =>
        site(`adapter:\n  type: example\n  config:\n${config}\n  collections: {}\n`);
      await writeFile(good, adapter("    dataset: empty"));
      await writeFile(bad, adapter("    datasett: empty\n    latencyMs: -1"));
      const { files, problems } = await validateSiteFiles([dir], { rules });
      expect(files.map((f) => basename(f.path))).to.deep.equal(["bad.yaml", "good.yml"]);
      expect(problems.map(({ line, column, field }) => [line, column, field])).to.deep.equal([
        [6, 3, "adapter.config.dataset"],
        [7, 5, "adapter.config.datasett"],
        [8, 5, "adapter.config.latencyMs"],
      ]);
      expect(problems[0]?.message).to.equal("adapter.config.dataset is required");
      await plugins.close();
    });

    it("reports a path that does not exist", async () => {
      const { problems } = await validateSiteFiles([join(dir, "nope.yaml")], { rules });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.include({ line: 1, column: 1, field: "" });
      expect(problems[0]?.message).to.equal("cannot read the file: no such file or folder");
    });

    it("ignores files that are not YAML and takes relative paths from cwd", async () => {
      await writeFile(join(dir, "notes.txt"), "not a site");
      await writeFile(join(dir, "a.yaml"), site("site_id: aaa\n"));
      const { files, problems } = await validateSiteFiles(["."], { rules, cwd: dir });
      expect(files.map((f) => f.path)).to.deep.equal([join(dir, "a.yaml")]);
      expect(problems).to.deep.equal([]);
    });
  });
});
