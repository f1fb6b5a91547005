import { expect } from "chai";
import { MAX_NESTING_DEPTH } from "../../validation/nesting-depth.ts";
import { MAX_SITE_FILE_BYTES, parseSiteFile } from "./site-file.ts";
import type { SiteFile } from "./site-file.ts";

const parse = (text: string | Buffer): SiteFile =>
  parseSiteFile(typeof text === "string" ? Buffer.from(text, "utf8") : text, "/x/site.yaml");

/** The one problem of a refused file, without its path. */
function onlyProblem(file: SiteFile) {
  expect(file.problems).to.have.length(1);
  expect(file.data).to.equal(undefined);
  const { path, ...rest } = file.problems[0]!;
  expect(path).to.equal("/x/site.yaml");
  return rest;
}

describe("site files", () => {
  describe("locate", () => {
    const file = parse(
      [
        "# a comment first", // 1
        "business_name: Acme", // 2
        "additional_domains:", // 3
        "  - www.acme.example", // 4
        "  - shop.acme.example", // 5
        "adapter:", // 6
        "  type: rest", // 7
        "  config:", // 8
        "    baseUrl: https://api.acme.example", // 9
        "  collections: {menu: {source: /menu}}", // 10
        "pronunciations:", // 11
        "  St. Mary's: saint MARE-eez", // 12
        "",
      ].join("\n"),
    );

    it("parses a clean mapping", () => {
      expect(file.problems).to.deep.equal([]);
      expect(file.data?.business_name).to.equal("Acme");
    });

    it("points at the key of a mapping entry", () => {
      expect(file.locate("business_name")).to.deep.equal({ line: 2, column: 1 });
      expect(file.locate("adapter.config.baseUrl")).to.deep.equal({ line: 9, column: 5 });
    });

    it("points at the item of a sequence", () => {
      expect(file.locate("additional_domains.1")).to.deep.equal({ line: 5, column: 5 });
    });

    it("follows flow collections", () => {
      expect(file.locate("adapter.collections.menu.source")).to.deep.equal({
        line: 10,
        column: 24,
      });
    });

    it("stops at the deepest existing part for a missing key or item", () => {
      expect(file.locate("adapter.config.queryMode")).to.deep.equal({ line: 8, column: 3 });
      expect(file.locate("additional_domains.7")).to.deep.equal({ line: 3, column: 1 });
      expect(file.locate("domain")).to.deep.equal({ line: 2, column: 1 });
      expect(file.locate("")).to.deep.equal({ line: 2, column: 1 });
    });

    it("finds keys that hold dots", () => {
      expect(file.locate("pronunciations.St. Mary's")).to.deep.equal({ line: 12, column: 3 });
    });
  });

  describe("refusals", () => {
    it("refuses a file that is not UTF-8, at the first bad byte", () => {
      const latin1 = Buffer.concat([
        Buffer.from("a: 1\nname: Caf"),
        Buffer.from([0xe9]),
        Buffer.from("\n"),
      ]);
      expect(onlyProblem(parse(latin1))).to.deep.equal({
        line: 2,
        column: 10,
        field: "",
        message: "file is not UTF-8 text (byte 0xE9); save it as UTF-8",
      });
    });

    it("drops a byte order mark", () => {
      const file = parse(Buffer.from("\uFEFFname: Café\n", "utf8"));
      expect(file.problems).to.deep.equal([]);
      expect(file.data).to.deep.equal({ name: "Café" });
      expect(file.locate("name")).to.deep.equal({ line: 1, column: 1 });
    });

    it("refuses a duplicate key at the duplicate, naming it", () => {
      const problem = onlyProblem(parse("a: 1\nb:\n  c: 2\n  d: 3\n  c: 4\n"));
      expect(problem).to.include({ line: 5, column: 3, field: "b.c" });
      expect(problem.message).to.equal(
        'duplicate key "c" (each key may appear only once in a mapping)',
      );
    });

    it("refuses an alias flood and accepts a few aliases", () => {
      // Each of the ten *b stands for ten *a of ten values: 1,000 values from three short lines.
      const ten = (item: string) => `[${Array(10).fill(item).join(", ")}]`;
      const bomb = `a: &a ${ten("x")}\nb: &b ${ten("*a")}\nc: ${ten("*b")}\n`;
      expect(onlyProblem(parse(bomb))).to.deep.equal({
        line: 2,
        column: 8,
        field: "",
        message: "too many YAML aliases (possible alias bomb)",
      });
      const few = parse("a: &a [x, y]\nb: *a\nc: *a\n");
      expect(few.problems).to.deep.equal([]);
      expect(few.data?.c).to.deep.equal(["x", "y"]);
    });

    it("refuses a list, a scalar or nothing at the top", () => {
      expect(onlyProblem(parse("# list\n- a\n- b\n"))).to.deep.include({ line: 2, column: 1 });
      expect(onlyProblem(parse("- a\n")).message).to.match(/must be a YAML mapping.*a list/);
      expect(onlyProblem(parse("just text\n")).message).to.match(/a single value/);
      expect(onlyProblem(parse("# nothing\n")).message).to.match(/is empty/);
    });

    it("refuses several documents in one file, at the second", () => {
      const problem = onlyProblem(parse("a: 1\n---\nb: 2\n"));
      expect(problem).to.include({ line: 2, column: 1, field: "" });
      expect(problem.message).to.match(/more than one YAML document/);
    });

    it("reports a syntax error at its position", () => {
      const problem = onlyProblem(parse("a: 1\nb: [1, 2\nc: 3\n"));
      expect(problem.field).to.equal("");
      expect(problem.message).to.match(/^invalid YAML: /);
      expect(problem.line).to.be.greaterThan(1);
    });

    describe("nesting", () => {
      const lists = (levels: number, inside = "") =>
        "[".repeat(levels) + inside + "]".repeat(levels);
      const tooDeep = `lists and mappings nest more than ${MAX_NESTING_DEPTH} levels deep here (at most ${MAX_NESTING_DEPTH} levels)`;

      it("refuses 200 KB of [[[…]]], at the first list past the limit", () => {
        // The file's mapping is level 1, so the list at column 4 is level 2.
        expect(onlyProblem(parse(`a: 1\nb: ${lists(100_000)}\n`))).to.deep.equal({
          line: 2,
          column: 4 + MAX_NESTING_DEPTH - 1,
          field: "",
          message: tooDeep,
        });
      });

      it("refuses 500 KB of nested block lists (- - - …)", () => {
        const problem = onlyProblem(parse(`a:\n  ${"- ".repeat(250_000)}x\n`));
        expect(problem).to.include({ line: 2, message: tooDeep });
      });

      it("refuses mappings indented past the limit", () => {
        const lines = Array.from({ length: 100 }, (_, depth) => `${" ".repeat(depth)}k:`);
        const problem = onlyProblem(parse(`${lines.join("\n")} 1\n`));
        expect(problem).to.include({ line: MAX_NESTING_DEPTH + 1, message: tooDeep });
      });

      it("reads a file nested exactly to the limit", () => {
        const file = parse(`a: ${lists(MAX_NESTING_DEPTH - 1, "x")}\n`);
        expect(file.problems).to.deep.equal([]);
        let value: unknown = file.data?.a;
        for (let level = 2; level <= MAX_NESTING_DEPTH; level++) value = (value as unknown[])[0];
        expect(value).to.equal("x");
      });

      it("refuses aliases inside aliases that nest past the limit once expanded, at the first", () => {
        const problem = onlyProblem(parse(`a: &a ${lists(40)}\nb: ${lists(30, "*a")}\n`));
        expect(problem).to.deep.equal({
          line: 2,
          column: 34,
          field: "",
          message: `with its aliases expanded, ${tooDeep}`,
        });
      });
    });

    it("refuses a file over the size limit without parsing it", () => {
      const problem = onlyProblem(parse(Buffer.alloc(MAX_SITE_FILE_BYTES + 1, "a")));
      expect(problem.message).to.equal("file is larger than 1 MiB");
    });
  });
});
