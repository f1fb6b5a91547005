/**
 * The vectors of a site's passages: cosine ranking with ties by id and scores to 4 decimals, the
 * same answers after a round trip through the stored text, and stored text it cannot read
 * refused with VectorIndexError.
 */
import { expect } from "chai";
import { VectorIndex, VectorIndexError } from "./vector-index.ts";

const v = (...xs: number[]) => Float32Array.from(xs);

/** Passages in a 3-dimensional space: hours along x, delivery along y, prices along z. */
const ids = ["hours", "delivery", "prices", "hours-and-delivery"];
const vectors = [v(1, 0, 0), v(0, 2, 0), v(0, 0, 0.5), v(1, 1, 0)];

const thrown = (work: () => unknown): Error => {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
};

describe("VectorIndex", () => {
  it("ranks by cosine, the closest first, whatever the vectors' lengths", () => {
    const index = VectorIndex.build(ids, vectors);
    expect(index.search(v(0, 3, 0.1), 4).map((hit) => hit.id)).to.deep.equal([
      "delivery",
      "hours-and-delivery",
      "prices",
      "hours",
    ]);
  });

  it("gives cosine scores rounded to 4 decimals", () => {
    const index = VectorIndex.build(ids, vectors);
    expect(index.search(v(1, 0, 0), 2)).to.deep.equal([
      { id: "hours", score: 1 },
      { id: "hours-and-delivery", score: 0.7071 },
    ]);
  });

  it("answers at most `limit` hits", () => {
    const index = VectorIndex.build(ids, vectors);
    expect(index.search(v(1, 1, 1), 2)).to.have.lengthOf(2);
  });

  it("orders equal scores by id", () => {
    const index = VectorIndex.build(["b", "c", "a"], [v(0, 1), v(0, 1), v(0, 1)]);
    expect(index.search(v(0, 1), 3).map((hit) => hit.id)).to.deep.equal(["a", "b", "c"]);
  });

  it("orders scores equal to 4 decimals by id", () => {
    const index = VectorIndex.build(["b", "a"], [v(1, 0.00001), v(1, 0)]);
    expect(index.search(v(1, 0), 2)).to.deep.equal([
      { id: "a", score: 1 },
      { id: "b", score: 1 },
    ]);
  });

  it("finds nothing for a vector without direction", () => {
    const index = VectorIndex.build(ids, vectors);
    expect(index.search(v(0, 0, 0), 3)).to.deep.equal([]);
  });

  it("finds nothing in an index of no passages", () => {
    expect(VectorIndex.build([], []).search(v(1, 0, 0), 3)).to.deep.equal([]);
  });

  it("answers the same after a round trip through its stored text", () => {
    const built = VectorIndex.build(ids, vectors);
    const loaded = VectorIndex.load(built.serialize());
    const query = v(0.3, 0.9, 0.2);
    expect(loaded.search(query, 4)).to.deep.equal(built.search(query, 4));
    expect(loaded.size).to.equal(4);
    expect(loaded.dimensions).to.equal(3);
  });

  it("round-trips an index of no passages", () => {
    const loaded = VectorIndex.load(VectorIndex.build([], []).serialize());
    expect(loaded.size).to.equal(0);
  });

  it("stores one byte per number (int8), about a quarter of float32", () => {
    const many = Array.from({ length: 100 }, (_, i) =>
      Float32Array.from({ length: 256 }, (_, k) => Math.sin(i * 256 + k)),
    );
    const text = VectorIndex.build(
      many.map((_, i) => `p${i}`),
      many,
    ).serialize();
    // 25,600 bytes as base64 is 34,136 characters; the ids and the header add little.
    expect(text.length).to.be.within(34_136, 36_000);
  });

  it("ranks as float32 would, to within the int8 rounding", () => {
    const many = Array.from({ length: 50 }, (_, i) =>
      Float32Array.from({ length: 64 }, (_, k) => Math.sin(i * 64 + k * 1.7)),
    );
    const index = VectorIndex.build(
      many.map((_, i) => `p${String(i).padStart(2, "0")}`),
      many,
    );
    const query = many[7]!;
    const [top] = index.search(query, 1);
    expect(top).to.deep.equal({ id: "p07", score: 1 });
    const exact = (a: Float32Array, b: Float32Array) => {
      let dot = 0;
      for (let k = 0; k < a.length; k++) dot += a[k]! * b[k]!;
      return dot / Math.hypot(...a) / Math.hypot(...b);
    };
    for (const hit of index.search(query, 50)) {
      const i = Number(hit.id.slice(1));
      expect(Math.abs(hit.score - exact(many[i]!, query))).to.be.below(0.01);
    }
  });

  describe("refuses what it cannot index", () => {
    it("ids and vectors of different counts", () => {
      expect(() => VectorIndex.build(["a"], [])).to.throw(VectorIndexError, /1 ids and 0 vectors/);
    });

    it("vectors of different lengths", () => {
      expect(() => VectorIndex.build(["a", "b"], [v(1, 0), v(1, 0, 0)])).to.throw(
        VectorIndexError,
        /vector 1 has 3 numbers, not 2/,
      );
    });

    it("the same id twice", () => {
      expect(() => VectorIndex.build(["a", "a"], [v(1), v(1)])).to.throw(
        VectorIndexError,
        /id "a" appears twice/,
      );
    });

    it("a number that is not finite", () => {
      expect(() => VectorIndex.build(["a"], [v(1, Number.NaN)])).to.throw(
        VectorIndexError,
        /vector 0 holds a number that is not finite/,
      );
    });

    it("a query of another length", () => {
      const index = VectorIndex.build(ids, vectors);
      expect(() => index.search(v(1, 0), 3)).to.throw(
        VectorIndexError,
        /the query has 2 numbers, the index 3/,
      );
    });
  });

  describe("refuses stored text it cannot read, with VectorIndexError", () => {
    const stored = () =>
      JSON.parse(VectorIndex.build(ids, vectors).serialize()) as Record<string, unknown>;
    const cases: [string, () => string, RegExp][] = [
      ["text that is not JSON", () => "not json", /not JSON/],
      ["JSON of another kind", () => JSON.stringify({ hello: 1 }), /not a stored vector index/],
      [
        "a later version",
        () => JSON.stringify({ ...stored(), version: 2 }),
        /version 2 is not one this service reads/,
      ],
      [
        "another encoding",
        () => JSON.stringify({ ...stored(), encoding: "float16" }),
        /encoding "float16" is not int8/,
      ],
      [
        "ids that are not strings",
        () => JSON.stringify({ ...stored(), ids: [1, 2, 3, 4] }),
        /ids are not a list of strings/,
      ],
      [
        "vectors that are not base64",
        () => JSON.stringify({ ...stored(), vectors: "!!!!" }),
        /vectors are not base64/,
      ],
      [
        "fewer bytes than ids times dimensions",
        () => JSON.stringify({ ...stored(), vectors: Buffer.alloc(11).toString("base64") }),
        /11 bytes of vectors for 4 ids of 3 dimensions/,
      ],
      [
        "dimensions that are not a count",
        () => JSON.stringify({ ...stored(), dimensions: -3 }),
        /dimensions -3 is not a count/,
      ],
    ];
    for (const [what, text, message] of cases) {
      it(what, () => {
        const error = thrown(() => VectorIndex.load(text()));
        expect(error).to.be.instanceOf(VectorIndexError);
        expect(error.message).to.match(message);
      });
    }
  });
});
