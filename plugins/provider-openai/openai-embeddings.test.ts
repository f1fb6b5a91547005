/**
 * How the provider reads an embeddings answer: vectors in input order by `index`, and every
 * answer it cannot use refused with a reason, so a wrong vector never reaches an index.
 */
import { expect } from "chai";
import { EMBEDDING_DIMENSIONS, vectorsOf } from "./openai-embeddings.ts";

const vector = (x: number) => new Array<number>(EMBEDDING_DIMENSIONS).fill(x);
const item = (index: unknown, embedding: unknown = vector(0.5)) => ({
  object: "embedding",
  index,
  embedding,
});

describe("OpenAI embeddings answer", () => {
  it("puts the vectors in the order of their index", () => {
    const vectors = vectorsOf({ data: [item(1, vector(1)), item(0, vector(0))] }, 2);
    expect((vectors as Float32Array[]).map((v) => v[0])).to.deep.equal([0, 1]);
  });

  const refused: [string, unknown, number, string][] = [
    ["no data", { object: "list" }, 1, "OpenAI's answer holds no list of embeddings (data)"],
    ["fewer embeddings than texts", { data: [item(0)] }, 2, "holds 1 embeddings for 2 texts"],
    ["an index out of range", { data: [item(2)] }, 1, "an embedding of no input (index 2)"],
    ["an index that is not a number", { data: [item("0")] }, 1, 'no input (index "0")'],
    ["two embeddings of one input", { data: [item(0), item(0)] }, 2, "two embeddings of input 0"],
    ["a vector of another length", { data: [item(0, [1, 2])] }, 1, "is not 256 numbers"],
    ["a vector holding a string", { data: [item(0, ["0.1"])] }, 1, "is not 256 numbers"],
  ];
  for (const [what, answer, count, reason] of refused) {
    it(`refuses an answer with ${what}`, () => {
      expect(vectorsOf(answer, count)).to.be.a("string").that.includes(reason);
    });
  }
});
