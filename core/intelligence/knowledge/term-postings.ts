/**
 * The knowledge index's postings (which passages hold a term, how often, in which field) packed
 * into one byte array and read in place by a search. MiniSearch keeps a Map per term and field
 * and a Map entry per passage: for 5,000 passages about 400,000 entries, 23 MB of heap and over
 * 100 ms to rebuild from JSON on a cold instance. Packed they take about 2 MB, and loading them
 * is finding where each term starts.
 *
 * Layout, every number an unsigned LEB128 varint: per term, in the order of the term list, per
 * field holding it (ascending): `fieldId + 1`, the count of passages, then per passage
 * (ascending) the gap from the previous passage's number (the first from 0) and the term's
 * frequency there; a 0 ends the term.
 */

/** One term's postings in one field: passage numbers (ascending) and frequencies, interleaved. */
export type FieldPostings = number[];

/** Raised by `locateTerms` for bytes that do not hold the postings of the terms given. */
export class PostingsError extends Error {}

function pushVarint(bytes: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
}

/** Packs each term's postings, per term its fields by field id (an absent field: undefined). */
export function packPostings(terms: Iterable<(FieldPostings | undefined)[]>): Uint8Array {
  const bytes: number[] = [];
  for (const fields of terms) {
    fields.forEach((postings, fieldId) => {
      if (postings === undefined || postings.length === 0) return;
      pushVarint(bytes, fieldId + 1);
      pushVarint(bytes, postings.length / 2);
      let previous = 0;
      for (let k = 0; k < postings.length; k += 2) {
        pushVarint(bytes, postings[k]! - previous);
        pushVarint(bytes, postings[k + 1]!);
        previous = postings[k]!;
      }
    });
    bytes.push(0);
  }
  return Uint8Array.from(bytes);
}

/** Reads varints from the packed bytes, from `at` on. */
class Cursor {
  constructor(
    private readonly bytes: Uint8Array,
    public at: number,
  ) {}

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.bytes[this.at++];
      if (byte === undefined) throw new PostingsError("postings end inside a number");
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }
}

/** Called per field of a term with the count of its passages, then per passage. */
export interface PostingsVisitor {
  field(fieldId: number, passages: number): void;
  passage(passage: number, frequency: number): void;
}

/** Visits the postings of the term starting at `offset`, fields and passages ascending. */
export function readPostings(bytes: Uint8Array, offset: number, visitor: PostingsVisitor): void {
  const cursor = new Cursor(bytes, offset);
  for (let field = cursor.varint(); field !== 0; field = cursor.varint()) {
    const count = cursor.varint();
    visitor.field(field - 1, count);
    let passage = 0;
    for (let k = 0; k < count; k++) {
      passage += cursor.varint();
      visitor.passage(passage, cursor.varint());
    }
  }
}

/**
 * Where each of `terms` terms' postings start in `bytes`, checking on the way that field ids
 * ascend below `fields`, passage numbers ascend below `passages`, and that the bytes end with
 * the last term; throws PostingsError otherwise.
 */
export function locateTerms(
  bytes: Uint8Array,
  terms: number,
  fields: number,
  passages: number,
): Uint32Array {
  const offsets = new Uint32Array(terms);
  const cursor = new Cursor(bytes, 0);
  for (let t = 0; t < terms; t++) {
    offsets[t] = cursor.at;
    let previousField = 0;
    for (let field = cursor.varint(); field !== 0; field = cursor.varint()) {
      if (field <= previousField || field > fields) throw new PostingsError(`field ${field - 1}`);
      previousField = field;
      const count = cursor.varint();
      let passage = -1;
      for (let k = 0; k < count; k++) {
        const gap = cursor.varint();
        passage = k === 0 ? gap : passage + gap;
        if ((k > 0 && gap === 0) || passage >= passages) {
          throw new PostingsError(`passage ${passage} of ${passages}`);
        }
        if (cursor.varint() === 0) throw new PostingsError("a frequency of 0");
      }
    }
  }
  if (cursor.at !== bytes.length) throw new PostingsError("postings go on after the last term");
  return offsets;
}
