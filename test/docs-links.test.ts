/**
 * The documentation's relative links all lead somewhere: each file or folder a link names exists,
 * and each `#anchor` is a heading of the page it points into, by GitHub's slugs. And the pages the
 * tests read (helpers/docs.ts) are all of docs/, in the order the README lists them.
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import {
  DOC_PAGES,
  docPage,
  headingAnchors,
  headingSlug,
  markdownUnderDocs,
  repo,
  withoutCodeBlocks,
} from "./helpers/docs.ts";

/** The relative links of a page that do not resolve, each with its line and why. */
function brokenLinks(page: string): string[] {
  const text = withoutCodeBlocks(docPage(page));
  const broken: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const line = text.slice(0, match.index).split("\n").length;
    const [file, anchor] = target.split("#") as [string, string | undefined];
    const into =
      file === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
    if (!fs.existsSync(path.join(repo, into))) {
      broken.push(`line ${line}: ${target}: no file ${into}`);
    } else if (anchor !== undefined && !headingAnchors(docPage(into)).has(anchor)) {
      broken.push(`line ${line}: ${target}: no heading #${anchor} in ${into}`);
    }
  }
  return broken;
}

describe("the documentation's links", () => {
  for (const page of DOC_PAGES) {
    it(`resolves every relative link and anchor of ${page}`, () => {
      expect(brokenLinks(page)).to.deep.equal([]);
    });
  }
});

describe("the documentation's pages", () => {
  it("are every Markdown file under docs/", () => {
    expect(DOC_PAGES.filter((page) => page !== "README.md").sort()).to.deep.equal(
      markdownUnderDocs(),
    );
  });

  it("are in the order the README's Documentation section lists them", () => {
    const readme = docPage("README.md");
    const section = readme.split(/^## Documentation$/m)[1]?.split(/^## /m)[0] ?? "";
    const listed = [...section.matchAll(/^- \[[^\]]+\]\(([^)]+)\)/gm)].map((m) => m[1]);
    expect(["README.md", ...listed]).to.deep.equal([...DOC_PAGES]);
  });
});

describe("a heading's anchor, as GitHub makes it", () => {
  it("lowers the case and makes each space a hyphen", () => {
    expect(headingSlug("Embed the widget")).to.equal("embed-the-widget");
  });

  it("drops punctuation and backticks but keeps hyphens", () => {
    expect(headingSlug("Dashboard accounts: sign-up, sign-in, sessions")).to.equal(
      "dashboard-accounts-sign-up-sign-in-sessions",
    );
  });

  it("drops the slashes and colons of a route", () => {
    expect(headingSlug("Health: `GET /v1/health`, `/v1/health/live`")).to.equal(
      "health-get-v1health-v1healthlive",
    );
  });

  it("keeps underscores", () => {
    expect(headingSlug("Where `site_id` lives")).to.equal("where-site_id-lives");
  });

  it("numbers a repeated heading's anchor from 1", () => {
    expect([...headingAnchors("# Sites\n\n## Sites\n")]).to.deep.equal(["sites", "sites-1"]);
  });

  it("reads no heading inside a code block", () => {
    expect([...headingAnchors("# Top\n\n```sh\n# → 200\n```\n")]).to.deep.equal(["top"]);
  });
});
