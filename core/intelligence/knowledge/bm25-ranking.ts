/**
 * The knowledge index's ranking: MiniSearch's BM25+ (k 1.2, b 0.7, d 0.5) with its prefix and
 * fuzzy terms (MiniSearch's own radix tree finds them) and its OR combination, computed in the
 * order MiniSearch computes it, over packed postings (term-postings.ts) and typed arrays instead
 * of a Map and an object per matching passage. A question whose words are in every passage then
 * costs a few milliseconds instead of tens; knowledge-index.test.ts checks that the scores are
 * MiniSearch's.
 *
 * Per question term: the term itself weighs 1; longer terms it begins (prefix, for terms of
 * MIN_LOOSE_TERM letters or more) weigh 0.375·len/(len + 0.3·extra letters); terms within
 * round(0.2·len) edits (fuzzy, same length rule, at most 6) weigh 0.45·len/(len + edits). Each
 * field's BM25+ score is multiplied by its boost. A passage's score is the sum over the
 * question's terms times how many of them it matched.
 */
import type SearchableMap from "minisearch/SearchableMap";
import { readPostings, type PostingsVisitor } from "./term-postings.ts";

/** Words shorter than this are matched exactly: "tea" must find neither "team" nor "ten". */
export const MIN_LOOSE_TERM = 4;

const K = 1.2;
const B = 0.7;
const D = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const FUZZINESS = 0.2;
const MAX_EDITS = 6;

/** What the ranking reads: the index's parts as held in memory. */
export interface RankingData {
  /** How many passages the index holds. */
  passages: number;
  /** Per passage, per field: its length (distinct tokens). */
  lengths: ArrayLike<number>;
  /** Per field: the mean length. */
  averages: readonly number[];
  /** Per field (by field id): its weight. */
  boosts: readonly number[];
  postings: Uint8Array;
  /** Per term number: where its postings start. */
  offsets: Uint32Array;
  /** Every term, to its number. */
  dictionary: SearchableMap<number>;
}

/** A passage a question matched, by number, and its score (unrounded). */
export interface Ranked {
  passage: number;
  score: number;
}

/** Adds one derived term's weighted BM25+ scores into a question term's scores. */
class TermScorer implements PostingsVisitor {
  weight = 1;
  scores!: Float64Array;
  touched!: number[];
  private boost = 1;
  private idf = 0;
  private fieldId = 0;

  constructor(private readonly data: RankingData) {}

  field(fieldId: number, passages: number): void {
    const total = this.data.passages;
    this.fieldId = fieldId;
    this.boost = this.data.boosts[fieldId] ?? 1;
    this.idf = Math.log(1 + (total - passages + 0.5) / (passages + 0.5));
  }

  passage(passage: number, frequency: number): void {
    const { lengths, averages, boosts } = this.data;
    const length = lengths[passage * boosts.length + this.fieldId]!;
    const raw =
      this.idf *
      (D +
        (frequency * (K + 1)) / (frequency + K * (1 - B + (B * length) / averages[this.fieldId]!)));
    const scores = this.scores;
    if (scores[passage] === 0) this.touched.push(passage);
    scores[passage] = scores[passage]! + this.weight * this.boost * raw;
  }
}

export class Bm25Ranking {
  private readonly scorer: TermScorer;

  constructor(private readonly data: RankingData) {
    this.scorer = new TermScorer(data);
  }

  /** Every passage matching any of `terms` (processed, distinct), in no particular order. */
  rank(terms: readonly string[]): Ranked[] {
    const count = this.data.passages;
    const total = new Float64Array(count);
    const matchedTerms = new Uint8Array(count);
    const matched: number[] = [];
    const scores = new Float64Array(count);
    for (const term of terms) {
      const touched: number[] = [];
      this.scoreTerm(term, scores, touched);
      for (const passage of touched) {
        const before = matchedTerms[passage]!;
        total[passage] = before === 0 ? scores[passage]! : total[passage]! + scores[passage]!;
        if (before === 0) matched.push(passage);
        matchedTerms[passage] = before + 1;
        scores[passage] = 0;
      }
    }
    return matched.map((passage) => ({ passage, score: total[passage]! * matchedTerms[passage]! }));
  }

  /** One question term's scores: the term, then the terms it begins, then its near misses. */
  private scoreTerm(term: string, scores: Float64Array, touched: number[]): void {
    const { dictionary } = this.data;
    this.scorer.scores = scores;
    this.scorer.touched = touched;
    const exact = dictionary.get(term);
    if (exact !== undefined) this.score(exact, 1);
    if (term.length < MIN_LOOSE_TERM) return;
    const edits = Math.min(MAX_EDITS, Math.round(term.length * FUZZINESS));
    const near = edits > 0 ? dictionary.fuzzyGet(term, edits) : undefined;
    for (const [longer, number] of dictionary.atPrefix(term)) {
      const extra = longer.length - term.length;
      if (extra === 0) continue;
      near?.delete(longer);
      this.score(number, (PREFIX_WEIGHT * longer.length) / (longer.length + 0.3 * extra));
    }
    for (const [other, [number, distance]] of near ?? []) {
      if (distance === 0) continue;
      this.score(number, (FUZZY_WEIGHT * other.length) / (other.length + distance));
    }
  }

  private score(term: number, weight: number): void {
    this.scorer.weight = weight;
    readPostings(this.data.postings, this.data.offsets[term]!, this.scorer);
  }
}
