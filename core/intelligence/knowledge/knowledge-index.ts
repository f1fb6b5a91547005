/**
 * A site's keyword index over its passages: MiniSearch's BM25+ over each passage's title,
 * heading (both weighing double) and text, with prefix and fuzzy matching of words of four
 * letters or more, the words processed for the site's language (language-terms.ts). Pure
 * JavaScript over a string stored with the site, so every instance, on every database, ranks
 * a question's passages the same; scores are rounded to four decimals and ties go to the lower
 * passage id, so floating-point noise never reorders them.
 *
 * Built once when a crawl finishes (`build`, then `serialize` to store), loaded by any instance
 * that needs it (`load`). A built index is held in the same packed form as a loaded one
 * (term-postings.ts), so both answer alike and weigh alike in memory.
 */
import MiniSearch, { type Options, type SearchOptions } from "minisearch";
import {
  INDEX_FIELDS,
  KNOWLEDGE_INDEX_FORMAT,
  KnowledgeIndexFormatError,
  readIndex,
  writeIndex,
  type IndexParts,
  type LoadedParts,
} from "./knowledge-index-form.ts";
import type { KnowledgeHit, Passage } from "./knowledge-types.ts";
import { languageTerms, type LanguageTerms } from "./language-terms.ts";
import {
  locateTerms,
  packPostings,
  type FieldPostings,
  type TermPostings,
} from "./term-postings.ts";

export { KNOWLEDGE_INDEX_FORMAT, KnowledgeIndexFormatError };

/** The most passages one search answers (the agent's tool takes `limit ≤ 5`). */
export const MAX_SEARCH_LIMIT = 5;

/** The most distinct terms of a question searched; the rest are ignored, bounding a search's work. */
export const MAX_QUERY_TERMS = 32;

/** Words shorter than this are matched exactly: "tea" must not find "team" nor "ten". */
const MIN_LOOSE_TERM = 4;

const searchOptions: SearchOptions = {
  boost: { title: 2, heading: 2, text: 1 },
  prefix: (term) => term.length >= MIN_LOOSE_TERM,
  fuzzy: (term) => (term.length >= MIN_LOOSE_TERM ? 0.2 : false),
  combineWith: "OR",
  // The question's terms arrive processed (see `search`), one per space.
  tokenize: (query) => query.split(" "),
  processTerm: (term) => term,
};

function miniSearchOptions(terms: LanguageTerms): Options {
  return {
    fields: [...INDEX_FIELDS],
    idField: "n",
    tokenize: terms.tokenize,
    processTerm: terms.processTerm,
    searchOptions,
  };
}

/** `processTerm` remembering its answers: a site's words repeat, and stemming is the slow part. */
function remembered(processTerm: (term: string) => string | null) {
  const answers = new Map<string, string | null>();
  return (term: string): string | null => {
    let answer = answers.get(term);
    if (answer === undefined) {
      answer = processTerm(term);
      answers.set(term, answer);
    }
    return answer;
  };
}

/** MiniSearch's term index, which `fromParts` fills with packed postings in place of its Maps. */
interface TermIndex {
  set(term: string, postings: TermPostings): void;
}

const round = (score: number) => Math.round(score * 1e4) / 1e4;

export class KnowledgeIndex {
  private constructor(
    private readonly parts: IndexParts,
    private readonly terms: LanguageTerms,
    private readonly mini: MiniSearch,
  ) {}

  /** The index of `passages` for a site of `language` (a BCP 47 tag; undefined: no stemming). */
  static build(passages: Passage[], language: string | undefined): KnowledgeIndex {
    const terms = languageTerms(language);
    const mini = new MiniSearch({
      ...miniSearchOptions(terms),
      processTerm: remembered(terms.processTerm),
    });
    mini.addAll(passages.map((p, n) => ({ n, title: p.title, heading: p.heading, text: p.text })));
    const built = mini.toJSON();
    const lengths = passages.flatMap((_, n) =>
      INDEX_FIELDS.map((__, f) => built.fieldLength[n]?.[f] ?? 0),
    );
    const postings = built.index.map(
      ([, fields]): FieldPostings =>
        new Map(
          Object.entries(fields).map(([field, frequencies]) => [
            Number(field),
            new Map(Object.entries(frequencies).map(([n, count]) => [Number(n), count as number])),
          ]),
        ),
    );
    const parts: IndexParts = {
      language: terms.language,
      passages,
      lengths,
      averages: INDEX_FIELDS.map((_, f) => built.averageFieldLength[f] ?? 0),
      terms: built.index.map(([term]) => term),
      postings: packPostings(postings),
    };
    const located = locateTerms(
      parts.postings,
      parts.terms.length,
      INDEX_FIELDS.length,
      passages.length,
    );
    return KnowledgeIndex.fromParts({ ...parts, located });
  }

  /**
   * The index stored as `serialized` (by `serialize`, on any instance). Throws
   * KnowledgeIndexFormatError for a string of another format version or a malformed one: the
   * caller then builds the index again from the passages.
   */
  static load(serialized: string): KnowledgeIndex {
    return KnowledgeIndex.fromParts(readIndex(serialized));
  }

  private static fromParts(parts: LoadedParts): KnowledgeIndex {
    const terms = languageTerms(parts.language);
    const count = parts.passages.length;
    const fields = INDEX_FIELDS.length;
    const documentIds: Record<number, number> = {};
    const fieldLength: Record<number, number[]> = {};
    for (let n = 0; n < count; n++) {
      documentIds[n] = n;
      fieldLength[n] = parts.lengths.slice(n * fields, (n + 1) * fields);
    }
    const mini = MiniSearch.loadJS(
      {
        documentCount: count,
        nextId: count,
        documentIds,
        fieldIds: Object.fromEntries(INDEX_FIELDS.map((field, f) => [field, f])),
        fieldLength,
        averageFieldLength: parts.averages,
        storedFields: {},
        index: [],
        serializationVersion: 2,
      },
      miniSearchOptions(terms),
    );
    const index = (mini as unknown as { _index?: TermIndex })._index;
    if (typeof index?.set !== "function") {
      throw new Error(
        "knowledge index: this MiniSearch keeps its terms otherwise; update term-postings.ts",
      );
    }
    parts.terms.forEach((term, t) => index.set(term, parts.located[t]!));
    const { located: _, ...kept } = parts;
    return new KnowledgeIndex(kept, terms, mini);
  }

  /** The string to store with the site; `load` makes it an index again, on any instance. */
  serialize(): string {
    return writeIndex(this.parts);
  }

  /**
   * At most `limit` (clamped to 1..MAX_SEARCH_LIMIT) passages for `query`, best first; none for
   * a question without a searchable word.
   */
  search(query: string, limit: number): KnowledgeHit[] {
    const wanted = Number.isFinite(limit)
      ? Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)))
      : MAX_SEARCH_LIMIT;
    const terms = [...new Set(this.terms.terms(query))].slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0) return [];
    const found = this.mini.search(terms.join(" ")).map((result) => ({
      passage: this.parts.passages[result.id as number]!,
      score: round(result.score),
    }));
    found.sort(
      (a, b) =>
        b.score - a.score ||
        (a.passage.id < b.passage.id ? -1 : a.passage.id > b.passage.id ? 1 : 0),
    );
    return found.slice(0, wanted).map(({ passage, score }) => ({
      url: passage.url,
      title: passage.title,
      heading: passage.heading,
      section_id: passage.sectionId,
      text: passage.text,
      score,
    }));
  }

  /** How many passages it holds. */
  get size(): number {
    return this.parts.passages.length;
  }
}
