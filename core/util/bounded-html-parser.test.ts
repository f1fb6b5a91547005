import { expect } from "chai";
import { BoundedParser } from "./bounded-html-parser.ts";

/** The open and close events of `html`, as `<name` and `>name`, parsed with at most `depth` open. */
function events(html: string, depth: number, xmlMode = false): string[] {
  const seen: string[] = [];
  const parser = new BoundedParser(
    {
      onopentag: (name) => void seen.push(`<${name}`),
      onclosetag: (name) => void seen.push(`>${name}`),
      ontext: (text) => void seen.push(text),
    },
    { xmlMode },
    depth,
  );
  parser.end(html);
  return seen;
}

describe("BoundedParser", () => {
  it("parses as htmlparser2's Parser while the nesting stays within its depth", () => {
    expect(events("<div><p>a<b>b</b></p></div>", 3)).to.deep.equal([
      "<div",
      "<p",
      "a",
      "<b",
      "b",
      ">b",
      ">p",
      ">div",
    ]);
  });

  it("closes an element at once when opening it would pass the depth: its text goes to its parent", () => {
    expect(events("<div><p><b><i>deep</i></b> after</p></div>", 2)).to.deep.equal([
      "<div",
      "<p",
      "<b",
      ">b",
      "<i",
      ">i",
      "deep",
      " after",
      ">p",
      ">div",
    ]);
  });

  it("still closes the elements at the depth with their own end tags", () => {
    expect(events("<div><div><div>x</div></div></div><p>y</p>", 2)).to.deep.equal([
      "<div",
      "<div",
      "<div",
      ">div",
      "x",
      ">div",
      ">div",
      "<p",
      "y",
      ">p",
    ]);
  });

  it("keeps a script at the depth an element, so that its code is not taken for text", () => {
    expect(events("<div><script>var x;</script></div>", 1)).to.deep.equal([
      "<div",
      "<script",
      "var x;",
      ">script",
      ">div",
    ]);
  });

  it("bounds XML the same way", () => {
    expect(events("<a><b><c>t</c></b></a>", 2, true)).to.deep.equal([
      "<a",
      "<b",
      "<c",
      ">c",
      "t",
      ">b",
      ">a",
    ]);
  });

  it("reads 100,000 nested elements, closed and unclosed, keeping their text", () => {
    const n = 100_000;
    const closed = events(`${"<div>".repeat(n)}deep${"</div>".repeat(n)}<p>after</p>`, 256);
    expect(closed.filter((e) => e === "<div")).to.have.length(n);
    expect(closed.filter((e) => e === ">div")).to.have.length(n);
    expect(closed).to.include("deep");
    expect(closed.slice(-3)).to.deep.equal(["<p", "after", ">p"]);
    const unclosed = events(`${"<div>".repeat(n)}deep`, 256);
    expect(unclosed).to.include("deep");
    expect(unclosed.filter((e) => e === ">div")).to.have.length(n);
  });
});
