/** Where a YAML text first nests too deeply, and texts whose brackets are not collections. */
import { expect } from "chai";
import { tooDeepYamlAt } from "./yaml-depth.ts";

const brackets = (n: number) => "[".repeat(n) + "]".repeat(n);

describe("tooDeepYamlAt", () => {
  it("finds the first list past the limit in flow collections nested far past it", () => {
    expect(tooDeepYamlAt(`a: ${brackets(100_000)}\n`, 64)).to.deep.equal({ line: 1, column: 67 });
  });

  it("counts the block mapping around flow collections as a level", () => {
    expect(tooDeepYamlAt(`a: ${brackets(63)}\n`, 64)).to.equal(undefined);
  });

  it("refuses one flow level more", () => {
    expect(tooDeepYamlAt(`a: ${brackets(64)}\n`, 64)).to.deep.equal({ line: 1, column: 67 });
  });

  it("takes brackets inside a quoted string for text", () => {
    expect(tooDeepYamlAt(`a: "${"[".repeat(70)}"\n`, 64)).to.equal(undefined);
  });

  it("takes brackets inside a block scalar for text", () => {
    expect(tooDeepYamlAt(`a: |\n  ${"[".repeat(70)}\n`, 64)).to.equal(undefined);
  });

  it("takes brackets inside words for text", () => {
    expect(tooDeepYamlAt(`a: x${"[x".repeat(70)}\n`, 64)).to.equal(undefined);
  });

  it("finds block lists nested past the limit", () => {
    const text = Array.from({ length: 70 }, (_, i) => `${" ".repeat(i * 2)}- x:`).join("\n");
    expect(tooDeepYamlAt(`${text}\n`, 64)).to.have.property("line", 33);
  });
});
