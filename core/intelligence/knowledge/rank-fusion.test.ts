/**
 * Reciprocal rank fusion: one ranking from the keyword and the meaning search's rankings.
 */
import { expect } from "chai";
import { fuseRanks as fuseScored } from "./rank-fusion.ts";

/** The fused ids alone. */
const fuseRanks = (lists: string[][], k?: number) => fuseScored(lists, k).map((rank) => rank.id);

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

  it("scores 1 an id first in every list", () => {
    expect(fuseScored([["a", "b"], ["a"]])[0]).to.deep.equal({ id: "a", score: 1 });
  });

  it("scores an id by its share of the most an id can score: Σ 1/(k + rank) over lists × 1/(k + 1)", () => {
    const [, b] = fuseScored([["a", "b"], ["a"]], 60);
    expect(b).to.deep.equal({ id: "b", score: 1 / 62 / (2 / 61) });
  });

  it("answers nothing for no lists or empty ones", () => {
    expect(fuseRanks([])).to.deep.equal([]);
    expect(fuseRanks([[], []])).to.deep.equal([]);
  });
});
