/**
 * The bound on the indexes an instance holds: their stored size, the least recently used leaving
 * first.
 */
import { expect } from "chai";
import { KnowledgeCache, type HeldKnowledge } from "./knowledge-cache.ts";

const held = (size: number): HeldKnowledge => ({
  index: undefined,
  vectors: undefined,
  builtAt: 1,
  checkedAt: 0,
  size,
});

describe("knowledge cache", () => {
  it("holds indexes up to its size, the least recently searched leaving first", () => {
    const cache = new KnowledgeCache(100);
    cache.set("a", held(40));
    cache.set("b", held(40));
    expect(cache.get("a")).not.to.equal(undefined);
    cache.set("c", held(40));
    expect(cache.peek("b")).to.equal(undefined);
    expect(cache.peek("a")).not.to.equal(undefined);
    expect(cache.peek("c")).not.to.equal(undefined);
    expect(cache.size).to.equal(80);
  });

  it("does not hold an index larger than its whole size", () => {
    const cache = new KnowledgeCache(100);
    cache.set("big", held(101));
    expect(cache.peek("big")).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it("makes every site held due for a check against the store", () => {
    const cache = new KnowledgeCache(100);
    cache.set("a", held(10));
    cache.staleAll();
    expect(cache.peek("a")?.checkedAt).to.equal(Number.NEGATIVE_INFINITY);
  });
});
