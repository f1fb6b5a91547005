/**
 * Reciprocal rank fusion: one ranking from the keyword and the meaning search's rankings.
 */
import { expect } from "chai";
import { fuseRanks } from "./rank-fusion.ts";

describe("rank fusion", () => {
  it("keeps a single list's order", () => {
    expect(fuseRanks([["a", "b", "c"]])).to.deep.equal(["a", "b", "c"]);
  });

  it("puts first an id ranked high in both lists", () => {
    expect(
      fuseRanks([
        ["x", "b", "a"],
        ["y", "b", "a"],
      ])[0],
    ).to.equal("b");
  });

  it("ranks an id found by both lists above one found by one list alone at the same rank", () => {
    expect(
      fuseRanks([
        ["a", "b"],
        ["c", "b"],
      ]),
    ).to.deep.equal(["b", "a", "c"]);
  });

  it("answers each id once", () => {
    expect(
      fuseRanks([
        ["a", "b"],
        ["b", "a"],
      ]),
    )
      .to.have.members(["a", "b"])
      .and.length(2);
  });

  it("breaks ties by id, whatever the lists' order", () => {
    expect(fuseRanks([["b"], ["a"]])).to.deep.equal(["a", "b"]);
    expect(fuseRanks([["a"], ["b"]])).to.deep.equal(["a", "b"]);
  });

  it("weighs ranks by 1/(k + rank): a small k lets one list's top outweigh agreement lower down", () => {
    const lists = [
      ["a", "c", "d", "b"],
      ["e", "f", "g", "b"],
    ];
    expect(fuseRanks(lists, 1)[0]).to.equal("a");
    expect(fuseRanks(lists, 60)[0]).to.equal("b");
  });

  it("answers nothing for no lists or empty ones", () => {
    expect(fuseRanks([])).to.deep.equal([]);
    expect(fuseRanks([[], []])).to.deep.equal([]);
  });
});
