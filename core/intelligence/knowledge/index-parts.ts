/**
 * Builds what a knowledge index is made of from its passages: each field's terms and their
 * frequencies, packed (term-postings.ts), and the field lengths BM25 weighs them by. The
 * heading field holds `indexedHeading`, not the passage's heading as such. Counted as
 * MiniSearch's `add` counts them (a field's length is its count of distinct tokens before stop
 * words go; the running mean of those), so that the ranking (bm25-ranking.ts) scores as
 * MiniSearch does, about five times faster than MiniSearch's own `addAll` and `toJSON`.
 */
import { INDEX_FIELDS, type IndexParts } from "./knowledge-index-form.ts";
import type { Passage } from "./knowledge-types.ts";
import type { LanguageTerms } from "./language-terms.ts";
import { packPostings, type FieldPostings } from "./term-postings.ts";

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

const PATH_SEPARATOR = " > ";

/**
 * The heading path as the index counts it: without the page's h1 when the title holds all of
 * its words (a page's h1 mostly repeats its title), so that a page's topic weighs once per
 * passage, in the title, and not twice. Otherwise a common word of a page's title outranks, on
 * every passage of the page, the rare word of the question that names the right passage.
 */
export function indexedHeading(
  passage: Pick<Passage, "title" | "heading">,
  terms: LanguageTerms,
): string {
  const path = passage.heading.split(PATH_SEPARATOR);
  const h1 = terms.terms(path[0]!);
  if (h1.length === 0) return passage.heading;
  const title = new Set(terms.terms(passage.title));
  return h1.every((term) => title.has(term)) ? path.slice(1).join(PATH_SEPARATOR) : passage.heading;
}

/** Code-unit order: the same on every machine, unlike `localeCompare`. */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The parts of the index of `passages`, their words processed by `terms`. */
export function indexParts(passages: Passage[], terms: LanguageTerms): IndexParts {
  const processTerm = remembered(terms.processTerm);
  const rememberedTerms: LanguageTerms = {
    ...terms,
    processTerm,
    terms: (text) => terms.tokenize(text).flatMap((token) => processTerm(token) ?? []),
  };
  const postings = new Map<string, FieldPostings[]>();
  const lengths: number[] = [];
  const averages: number[] = INDEX_FIELDS.map(() => 0);
  passages.forEach((passage, n) => {
    INDEX_FIELDS.forEach((field, fieldId) => {
      const text = field === "heading" ? indexedHeading(passage, rememberedTerms) : passage[field];
      const tokens = terms.tokenize(text);
      const length = new Set(tokens).size;
      lengths.push(length);
      averages[fieldId] = (averages[fieldId]! * n + length) / (n + 1);
      for (const token of tokens) {
        const term = processTerm(token);
        if (!term) continue;
        let fields = postings.get(term);
        if (fields === undefined) postings.set(term, (fields = []));
        const list = (fields[fieldId] ??= []);
        if (list[list.length - 2] === n) list[list.length - 1]!++;
        else list.push(n, 1);
      }
    });
  });
  const sorted = [...postings.keys()].sort(byCodeUnits);
  return {
    language: terms.language,
    passages,
    lengths,
    averages,
    terms: sorted,
    postings: packPostings(sorted.map((term) => postings.get(term)!)),
  };
}
