import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { formatProblem, formatProblemSummary } from "./format-problems.ts";
import { installedPlugins } from "../../../test/helpers/installed-plugins.ts";
import { validateCommand } from "./validate-command.ts";
import { MAX_NESTING_DEPTH } from "../../validation/nesting-depth.ts";

const repo = fileURLToPath(new URL("../../../", import.meta.url));

async function run(paths: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const { rules } = await installedPlugins({});
  const code = await validateCommand(paths, { cwd: repo, out: (line) => lines.push(line), rules });
  return { code, lines };
}

describe("sitevoice validate", () => {
  it("formats a problem as file:line:column  field  message", () => {
    const problem = {
      path: "/srv/sv/sites/a.yaml",
      line: 12,
      column: 5,
      field: "x.y",
      message: "m",
    };
    expect(formatProblem(problem, "/srv/sv")).to.equal("sites/a.yaml:12:5  x.y  m");
    expect(formatProblem({ ...problem, field: "" }, "/srv/sv")).to.equal("sites/a.yaml:12:5  -  m");
    expect(formatProblemSummary([problem])).to.equal("1 problem in 1 file");
    expect(formatProblemSummary([problem, { ...problem, path: "/b.yaml" }, problem])).to.equal(
      "3 problems in 2 files",
    );
  });

  it("checks sites/ by default and exits 0 when it is clean", async () => {
    expect(await run([])).to.deep.equal({ code: 0, lines: ["sites/: 3 files OK"] });
  });

  it("prints every problem of the broken fixtures and exits 1", async () => {
    const { code, lines } = await run(["test/fixtures/broken-sites"]);
    expect(code).to.equal(1);
    expect(lines).to.have.length(20);
    expect(lines[0]).to.equal(
      "test/fixtures/broken-sites/alias-bomb.yaml:7:10  -  too many YAML aliases (possible alias bomb)",
    );
    expect(lines).to.include(
      "test/fixtures/broken-sites/plain-http-base-url.yaml:10:5  adapter.config.baseUrl  " +
        "adapter.config.baseUrl must use https:// (plain http is allowed only for localhost and 127.0.0.1)",
    );
    expect(lines.at(-1)).to.equal("19 problems in 19 files");
  });

  it("names a file nested too deeply as one problem at its line, and goes on to the next file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-deep-"));
    try {
      const levels = 100_000;
      const deep = `business_name: Deep\nadapter: ${"[".repeat(levels)}${"]".repeat(levels)}\n`;
      fs.writeFileSync(path.join(dir, "a-deep.yaml"), deep);
      fs.writeFileSync(path.join(dir, "b-plain.yaml"), "business_name: Plain\n");
      const lines: string[] = [];
      const { rules } = await installedPlugins({});
      const code = await validateCommand([dir], { cwd: dir, out: (l) => lines.push(l), rules });
      expect(code).to.equal(1);
      expect(lines[0]).to.equal(
        `a-deep.yaml:2:${10 + MAX_NESTING_DEPTH - 1}  -  lists and mappings nest more than ` +
          `${MAX_NESTING_DEPTH} levels deep here (at most ${MAX_NESTING_DEPTH} levels)`,
      );
      expect(lines.slice(1, -1).every((line) => line.startsWith("b-plain.yaml:"))).to.equal(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
