/**
 * `sitevoice knowledge search` and `knowledge stats`, the real CLI in a child process on a local
 * store whose site (made by `sitevoice sync`) has no knowledge yet: what it prints, in words and
 * as JSON, and what it refuses. What a crawled site answers is in knowledge-search.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { runToEnd } from "./helpers/cli-process.ts";

const SITE = `schema_version: 1
site_id: harbour-dental
business_name: Harbour Dental
business_description: A dental practice by the harbour
domain: harbour-dental.example
`;

describe("sitevoice knowledge", function () {
  this.timeout(60_000);
  let cwd: string;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runToEnd(["knowledge", ...args], cwd, env);
  /** The last line printed: where a refusal is. */
  const lastLine = (output: string) => output.trim().split("\n").at(-1);

  before(async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-knowledge-cli-"));
    fs.mkdirSync(path.join(cwd, "sites"));
    fs.writeFileSync(path.join(cwd, "sites", "harbour-dental.yaml"), SITE);
    env = {
      DATABASE_URL: `sqlite:${path.join(cwd, "store.db")}`,
      SITEVOICE_DATA_DIR: path.join(cwd, "data"),
      SITEVOICE_JOBS: "off",
    };
    const synced = await runToEnd(["sync"], cwd, env);
    expect(synced.code, synced.output).to.equal(0);
  });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it("search says it found nothing, and that the site holds no knowledge yet", async () => {
    const searched = await cli("search", "harbour-dental", "are you open on sundays");
    expect(searched.code, searched.output).to.equal(0);
    expect(searched.output.trim()).to.equal(
      "Nothing found: harbour-dental's pages hold no knowledge yet (not crawled, or no text found).",
    );
  });

  it("search --json prints the empty list", async () => {
    const searched = await cli("search", "harbour-dental", "parking", "--json");
    expect(searched.code, searched.output).to.equal(0);
    expect(JSON.parse(searched.output)).to.deep.equal([]);
  });

  it("search refuses an unknown site with one line, exit 1", async () => {
    const searched = await cli("search", "no-such-site", "parking");
    expect(searched.code).to.equal(1);
    expect(lastLine(searched.output)).to.equal("sitevoice: Site 'no-such-site' not found");
  });

  it("search refuses a query of 2,000 characters, exit 1", async () => {
    const searched = await cli("search", "harbour-dental", "a".repeat(2000));
    expect(searched.code).to.equal(1);
    expect(lastLine(searched.output)).to.equal(
      "sitevoice: query must be at most 500 characters (query)",
    );
  });

  it("search refuses a query of spaces only, exit 1", async () => {
    const searched = await cli("search", "harbour-dental", "   ");
    expect(searched.code).to.equal(1);
    expect(lastLine(searched.output)).to.match(/^sitevoice: query is required/);
  });

  for (const limit of ["0", "6", "2.5", "abc"]) {
    it(`search refuses --limit ${limit}, exit 1`, async () => {
      const searched = await cli("search", "harbour-dental", "parking", "--limit", limit);
      expect(searched.code).to.equal(1);
      expect(lastLine(searched.output)).to.equal(
        "sitevoice: limit must be an integer from 1 to 5 (limit)",
      );
    });
  }

  it("search without a query is refused before anything is read", async () => {
    const searched = await cli("search", "harbour-dental");
    expect(searched.code).to.equal(1);
    expect(lastLine(searched.output)).to.include("expected <site_id> <query>");
  });

  it("stats prints zero counts for a site without knowledge", async () => {
    const stats = await cli("stats", "harbour-dental");
    expect(stats.code, stats.output).to.equal(0);
    expect(stats.output.trim().split("\n")).to.deep.equal([
      "pages      0",
      "sections   0",
      "passages   0",
      "languages  none",
      "indexed    never",
    ]);
  });

  it("stats --json prints the API's stats", async () => {
    const stats = await cli("stats", "harbour-dental", "--json");
    expect(stats.code, stats.output).to.equal(0);
    expect(JSON.parse(stats.output)).to.deep.equal({
      pages: 0,
      sections: 0,
      passages: 0,
      languages: [],
      indexed_at: null,
    });
  });

  it("stats refuses an unknown site, exit 1", async () => {
    const stats = await cli("stats", "no-such-site");
    expect(stats.code).to.equal(1);
    expect(lastLine(stats.output)).to.equal("sitevoice: Site 'no-such-site' not found");
  });
});
