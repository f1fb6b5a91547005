/**
 * Which stored vectors the provider in use reads: its own, readable ones; none without
 * embeddings, of another provider, or damaged (told, to log).
 */
import { expect } from "chai";
import { storedVectors } from "./stored-vectors.ts";
import type { VectorIndexError } from "./vector-index.ts";
import { VectorIndex } from "./vector-index.ts";

const vectors = VectorIndex.build(["a#0"], [Float32Array.of(1, 0)]).serialize();
const stored = { vectors, vectors_provider: "openai" };
const unread: VectorIndexError[] = [];
const told = (error: VectorIndexError) => unread.push(error);

describe("stored vectors", () => {
  beforeEach(() => unread.splice(0));

  it("reads the vectors its provider made", () => {
    expect(storedVectors(stored, "openai", told)?.serialize()).to.equal(vectors);
  });

  it("reads none without embeddings", () => {
    expect(storedVectors(stored, undefined, told)).to.equal(undefined);
  });

  it("reads none that another provider made", () => {
    expect(storedVectors(stored, "another", told)).to.equal(undefined);
  });

  it("reads none from a row without vectors", () => {
    expect(storedVectors({ vectors: null, vectors_provider: null }, "openai", told)).to.equal(
      undefined,
    );
    expect(storedVectors(undefined, "openai", told)).to.equal(undefined);
  });

  it("reads none that cannot be read, and says why", () => {
    expect(storedVectors({ ...stored, vectors: "{}" }, "openai", told)).to.equal(undefined);
    expect(unread.map((error) => error.message)).to.deep.equal([
      "the stored text is not a stored vector index",
    ]);
  });
});
