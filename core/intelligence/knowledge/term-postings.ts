/**
 * The knowledge index's postings (which passages hold a term, how often, in which field) packed
 * into one byte array, read back one term at a time when a search touches it. MiniSearch keeps a
 * Map per term and field, and a Map entry per passage: for 5,000 passages about 400,000 entries,
 * 23 MB of heap and 100 ms to rebuild from JSON. Packed, they are 2 MB and load in the time it
 * takes to find where each term's postings start.
 *
 * Layout, every number an unsigned LEB128 varint: per term, in the order of the term list, per
 * field holding it: `fieldId + 1`, the count of passages, then per passage (ascending) the gap
 * from the previous passage's number (the first from 0) and the term's frequency; a 0 ends the
 * term.
 */

/** One term's postings: field id → (passage number → frequency), as MiniSearch reads them. */
export type FieldPostings = Map<number, Map<number, number>>;

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

/** Packs each term's postings, in the order given; passage numbers must ascend within a field. */
export function packPostings(postings: Iterable<FieldPostings>): Uint8Array {
  const bytes: number[] = [];
  for (const fields of postings) {
    for (const [fieldId, passages] of fields) {
      pushVarint(bytes, fieldId + 1);
      pushVarint(bytes, passages.size);
      let previous = 0;
      for (const [passage, frequency] of passages) {
        pushVarint(bytes, passage - previous);
        pushVarint(bytes, frequency);
        previous = passage;
      }
    }
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

/**
 * One term's postings in the packed bytes, decoded on each `get` (a search reads each field
 * once): the value MiniSearch's term index holds for a term, in place of its Map of Maps.
 */
export class TermPostings {
  constructor(
    private readonly bytes: Uint8Array,
    private readonly offset: number,
  ) {}

  /** The postings of `fieldId`, passage number → frequency; undefined when none. */
  get(fieldId: number): Map<number, number> | undefined {
    const cursor = new Cursor(this.bytes, this.offset);
    for (let field = cursor.varint(); field !== 0; field = cursor.varint()) {
      const count = cursor.varint();
      if (field - 1 !== fieldId) {
        for (let k = 0; k < 2 * count; k++) cursor.varint();
        continue;
      }
      const passages = new Map<number, number>();
      let passage = 0;
      for (let k = 0; k < count; k++) {
        passage += cursor.varint();
        passages.set(passage, cursor.varint());
      }
      return passages;
    }
    return undefined;
  }
}

/**
 * Where each of `terms` terms' postings start in `bytes`, checking on the way that every field id
 * is below `fields`, every passage number below `passages`, and that the bytes end with the last
 * term; throws PostingsError otherwise.
 */
export function locateTerms(
  bytes: Uint8Array,
  terms: number,
  fields: number,
  passages: number,
): TermPostings[] {
  const located: TermPostings[] = [];
  const cursor = new Cursor(bytes, 0);
  for (let t = 0; t < terms; t++) {
    located.push(new TermPostings(bytes, cursor.at));
    for (let field = cursor.varint(); field !== 0; field = cursor.varint()) {
      if (field > fields) throw new PostingsError(`field ${field - 1} of ${fields}`);
      const count = cursor.varint();
      let passage = 0;
      for (let k = 0; k < count; k++) {
        passage += cursor.varint();
        if (passage >= passages) throw new PostingsError(`passage ${passage} of ${passages}`);
        cursor.varint();
      }
    }
  }
  if (cursor.at !== bytes.length) throw new PostingsError("postings go on after the last term");
  return located;
}
