/**
 * validateSiteFiles on the example sites and on files written for the test: every problem of a
 * file in order, an adapter plugin's own config schema, missing paths and files that are not YAML.
 * validate-sites-broken.test.ts covers the broken fixtures.
 */
import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { expect } from "chai";
import { installedPlugins } from "../../../test/helpers/installed-plugins.ts";
import type { SiteRules } from "../site-rules.ts";
import { listIndustries } from "./industries.ts";
import { validateSiteFiles } from "./validate-sites.ts";
import { repo, short } from "./validate-sites-fixtures.ts";

const sitesDir = join(repo, "sites");
const industries = listIndustries();

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

    it("reports an unknown widget string's key at its line and column", async () => {
      const file = join(dir, "strings.yaml");
      await writeFile(file, site("appearance:\n  strings:\n    start: Los\n    strat: Los\n"));
      const { problems } = await validateSiteFiles([file], { rules });
      expect(problems.map(({ line, column, field }) => [line, column, field])).to.deep.equal([
        [7, 5, "appearance.strings.strat"],
      ]);
      expect(problems[0]?.message).to.equal("appearance.strings.strat is not a known field");
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
