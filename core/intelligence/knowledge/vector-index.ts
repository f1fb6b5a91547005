/**
 * The vectors of a site's passages, for the optional meaning search: built when the knowledge
 * index is, stored with it as text, loaded by any instance, searched by cosine.
 *
 * Each vector is kept as int8, scaled so its largest number is ±127: a quarter of float32 in
 * memory and in the store (5,000 passages of 256 dimensions: 1.3 MB, 1.7 MB as stored text),
 * at a cost to cosine of about 0.003 at most. Since only directions count, the scale is not
 * kept; the index built and the index loaded hold the same bytes, so they answer alike.
 */

/** A vector index that cannot be built, read or searched as asked; the message says why. */
export class VectorIndexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VectorIndexError";
  }
}

export interface VectorHit {
  id: string;
  /** Cosine similarity to the query, rounded to 4 decimals. */
  score: number;
}

/** What `serialize` writes: JSON, the vectors as base64 of int8, `dimensions` bytes each. */
interface Stored {
  format: typeof FORMAT;
  version: typeof VERSION;
  encoding: "int8";
  dimensions: number;
  ids: string[];
  vectors: string;
}

const FORMAT = "sitevoice-vector-index";
const VERSION = 1;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class VectorIndex {
  readonly #ids: readonly string[];
  readonly #dimensions: number;
  /** `size` vectors of `dimensions` int8 numbers, one after another. */
  readonly #vectors: Int8Array;
  /** 1 / the length of each stored vector (0 for one of no length). */
  readonly #inverseNorms: Float64Array;
  /** Each id's position, made on first use of `vector`. */
  #positions: Map<string, number> | undefined;

  private constructor(ids: readonly string[], dimensions: number, vectors: Int8Array) {
    this.#ids = ids;
    this.#dimensions = dimensions;
    this.#vectors = vectors;
    this.#inverseNorms = new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      let sum = 0;
      for (let k = i * dimensions; k < (i + 1) * dimensions; k++) sum += vectors[k]! * vectors[k]!;
      this.#inverseNorms[i] = sum === 0 ? 0 : 1 / Math.sqrt(sum);
    }
  }

  /** The index of `vectors[i]` under `ids[i]`; throws VectorIndexError when they do not fit. */
  static build(ids: string[], vectors: Float32Array[]): VectorIndex {
    if (ids.length !== vectors.length) {
      throw new VectorIndexError(`${ids.length} ids and ${vectors.length} vectors`);
    }
    checkIds(ids);
    const dimensions = vectors[0]?.length ?? 0;
    const bytes = new Int8Array(ids.length * dimensions);
    vectors.forEach((vector, i) => {
      if (vector.length !== dimensions) {
        throw new VectorIndexError(`vector ${i} has ${vector.length} numbers, not ${dimensions}`);
      }
      let largest = 0;
      for (const x of vector) {
        if (!Number.isFinite(x)) {
          throw new VectorIndexError(`vector ${i} holds a number that is not finite`);
        }
        largest = Math.max(largest, Math.abs(x));
      }
      if (largest === 0) return;
      for (let k = 0; k < dimensions; k++) {
        bytes[i * dimensions + k] = Math.round((vector[k]! / largest) * 127);
      }
    });
    return new VectorIndex([...ids], dimensions, bytes);
  }

  /** The index `serialize` wrote; throws VectorIndexError for any other text. */
  static load(serialized: string): VectorIndex {
    let parsed: unknown;
    try {
      parsed = JSON.parse(serialized);
    } catch {
      throw new VectorIndexError("the stored vector index is not JSON");
    }
    const stored = (parsed ?? {}) as Partial<Record<keyof Stored, unknown>>;
    if (stored.format !== FORMAT) {
      throw new VectorIndexError("the stored text is not a stored vector index");
    }
    if (stored.version !== VERSION) {
      throw new VectorIndexError(
        `the stored vector index's version ${JSON.stringify(stored.version)} is not one this service reads (${VERSION})`,
      );
    }
    if (stored.encoding !== "int8") {
      throw new VectorIndexError(
        `the stored vector index's encoding ${JSON.stringify(stored.encoding)} is not int8`,
      );
    }
    const { dimensions, ids, vectors } = stored;
    if (!Number.isSafeInteger(dimensions) || (dimensions as number) < 0) {
      throw new VectorIndexError(
        `the stored vector index's dimensions ${JSON.stringify(dimensions)} is not a count`,
      );
    }
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) {
      throw new VectorIndexError("the stored vector index's ids are not a list of strings");
    }
    checkIds(ids as string[]);
    if (typeof vectors !== "string" || vectors.length % 4 !== 0 || !BASE64.test(vectors)) {
      throw new VectorIndexError("the stored vector index's vectors are not base64");
    }
    const bytes = Buffer.from(vectors, "base64");
    const expected = ids.length * (dimensions as number);
    if (bytes.length !== expected) {
      throw new VectorIndexError(
        `the stored vector index holds ${bytes.length} bytes of vectors for ${ids.length} ids ` +
          `of ${dimensions as number} dimensions`,
      );
    }
    const copy = new Int8Array(expected);
    copy.set(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length));
    return new VectorIndex(ids as string[], dimensions as number, copy);
  }

  /** How many vectors it holds. */
  get size(): number {
    return this.#ids.length;
  }

  /** The length of its vectors (0 when it holds none). */
  get dimensions(): number {
    return this.#dimensions;
  }

  /**
   * The direction of the vector stored under `id` (its int8 numbers), undefined without one:
   * building an index from it stores the same bytes, so an unchanged passage's vector carries
   * over to the next index without embedding it again.
   */
  vector(id: string): Float32Array | undefined {
    this.#positions ??= new Map(this.#ids.map((stored, i) => [stored, i]));
    const i = this.#positions.get(id);
    if (i === undefined) return undefined;
    const dimensions = this.#dimensions;
    return Float32Array.from(this.#vectors.subarray(i * dimensions, (i + 1) * dimensions));
  }

  /** The text `load` reads back: JSON with the vectors as base64. */
  serialize(): string {
    const bytes = Buffer.from(this.#vectors.buffer, this.#vectors.byteOffset, this.#vectors.length);
    const stored: Stored = {
      format: FORMAT,
      version: VERSION,
      encoding: "int8",
      dimensions: this.#dimensions,
      ids: [...this.#ids],
      vectors: bytes.toString("base64"),
    };
    return JSON.stringify(stored);
  }

  /**
   * The `limit` ids closest to `vector` by cosine, the closest first; equal scores (to 4
   * decimals) by id. A vector of no length is close to nothing; one of another dimension than the
   * index's (vectors of another model) throws VectorIndexError.
   */
  search(vector: Float32Array, limit: number): VectorHit[] {
    const dimensions = this.#dimensions;
    if (this.size === 0 || limit < 1) return [];
    if (vector.length !== dimensions) {
      throw new VectorIndexError(`the query has ${vector.length} numbers, the index ${dimensions}`);
    }
    let sum = 0;
    for (const x of vector) sum += x * x;
    if (!Number.isFinite(sum)) {
      throw new VectorIndexError("the query holds a number that is not finite");
    }
    if (sum === 0) return [];
    const query = Float64Array.from(vector, (x) => x / Math.sqrt(sum));
    const top: VectorHit[] = [];
    for (let i = 0; i < this.size; i++) {
      // + 0 turns a -0 into 0.
      const score = Math.round(this.#dot(i, query) * this.#inverseNorms[i]! * 1e4) / 1e4 + 0;
      const last = top.length === limit ? top[limit - 1]! : undefined;
      if (
        last !== undefined &&
        (score < last.score || (score === last.score && this.#ids[i]! > last.id))
      ) {
        continue;
      }
      const hit = { id: this.#ids[i]!, score };
      let at = last === undefined ? top.length : limit - 1;
      while (at > 0 && before(hit, top[at - 1]!)) {
        top[at] = top[at - 1]!;
        at--;
      }
      top[at] = hit;
    }
    return top;
  }

  /** The dot product of stored vector `i` and `query`, four numbers a step (about 1.5× faster). */
  #dot(i: number, query: Float64Array): number {
    const vectors = this.#vectors;
    const dimensions = this.#dimensions;
    const offset = i * dimensions;
    const quads = dimensions - (dimensions % 4);
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    for (let k = 0; k < quads; k += 4) {
      a += vectors[offset + k]! * query[k]!;
      b += vectors[offset + k + 1]! * query[k + 1]!;
      c += vectors[offset + k + 2]! * query[k + 2]!;
      d += vectors[offset + k + 3]! * query[k + 3]!;
    }
    for (let k = quads; k < dimensions; k++) a += vectors[offset + k]! * query[k]!;
    return a + b + c + d;
  }
}

/** Whether `a` ranks before `b`: a higher score, or an equal one and a smaller id. */
const before = (a: VectorHit, b: VectorHit) =>
  a.score > b.score || (a.score === b.score && a.id < b.id);

function checkIds(ids: string[]): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new VectorIndexError(`id ${JSON.stringify(id)} appears twice`);
    seen.add(id);
  }
}
