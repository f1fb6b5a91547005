/**
 * How text becomes the terms of a site's knowledge index, for the site's language. The index
 * and every search use the same instance's steps, so a question's words meet the passages'
 * words in one form:
 *
 * 1. tokenize: split at anything but letters, combining marks and digits ("24h" stays one
 *    token, "8:30" is "8" and "30", "l'hôtel" is "l" and "hôtel");
 * 2. lower-case; drop single letters (digits stay) and the language's stop words
 *    (stop-words.ts, compared folded);
 * 3. stem with the language's stemmer from `@orama/stemmers` (Porter for English, Snowball
 *    for de, fr, es, it, nl, pt), unless the term has a digit; a language without one is not
 *    stemmed;
 * 4. fold: decompose (NFD), strip combining marks, ß → ss, æ → ae, œ → oe, ø → o. Umlauts fold
 *    to their base letter ("Öffnungszeiten" → "offnungszeit"), not to "oe": the agent writes
 *    its searches with the umlaut, and a visitor's "oe" spelling is one edit away, which fuzzy
 *    search forgives.
 *
 * Stemming comes before folding because the stemmers know their language's accented letters.
 */
import { createRequire } from "node:module";
import { stopWords } from "./stop-words.ts";

/** The steps minisearch takes as its `tokenize` and `processTerm` options, and both together. */
export interface LanguageTerms {
  /** The primary subtag these steps are for; undefined for no language (or not a tag). */
  readonly language: string | undefined;
  /** Whether words are stemmed (the language has a stemmer). */
  readonly stems: boolean;
  /** The raw tokens of `text`, in order, unprocessed. */
  tokenize(text: string): string[];
  /** One token as the index holds it, or null when it is not indexed (a stop word, a letter). */
  processTerm(term: string): string | null;
  /** `text`'s indexed terms, in order: tokenize, then processTerm. */
  terms(text: string): string[];
}

/** The `@orama/stemmers` module of each language (primary subtag) it stems. */
const stemmerModules: Record<string, string> = {
  ar: "arabic",
  bg: "bulgarian",
  da: "danish",
  de: "german",
  el: "greek",
  en: "english",
  es: "spanish",
  fi: "finnish",
  fr: "french",
  ga: "irish",
  hu: "hungarian",
  hy: "armenian",
  id: "indonesian",
  it: "italian",
  lt: "lithuanian",
  nb: "norwegian",
  ne: "nepali",
  nl: "dutch",
  nn: "norwegian",
  no: "norwegian",
  pt: "portuguese",
  ro: "romanian",
  ru: "russian",
  sr: "serbian",
  sv: "swedish",
  ta: "tamil",
  tr: "turkish",
  uk: "ukrainian",
};

/** The languages (primary subtags) whose words are stemmed; others are only folded. */
export const STEMMED_LANGUAGES: readonly string[] = Object.keys(stemmerModules);

const TOKEN_SEPARATOR = /[^\p{L}\p{M}\p{N}]+/u;
const COMBINING_MARKS = /\p{M}+/gu;
const HAS_DIGIT = /\p{N}/u;
const SINGLE_LETTER = /^\p{L}\p{M}*$/u;
const LIGATURES: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o" };
const LIGATURE = /[ßæœø]/g;
const NOT_ASCII = /[^\x20-\x7e]/;

/** `word` (lower case) without diacritics: "Crème" → "creme", "straße" → "strasse". */
export function foldDiacritics(word: string): string {
  if (!NOT_ASCII.test(word)) return word;
  return word
    .normalize("NFD")
    .replace(COMBINING_MARKS, "")
    .replace(LIGATURE, (letter) => LIGATURES[letter]!);
}

/** The primary subtag of a language tag, lower-cased: "de" for "de-CH"; undefined if none. */
function primarySubtag(language: string | undefined): string | undefined {
  const subtag = language?.trim().split(/[-_]/)[0]?.toLowerCase();
  return subtag !== undefined && /^[a-z]{2,3}$/.test(subtag) ? subtag : undefined;
}

type Stem = (word: string) => string;

const require = createRequire(import.meta.url);

/** Loads a stemmer on first use (synchronously: building an index is synchronous). */
function loadStemmer(language: string): Stem {
  const module = require(`@orama/stemmers/${stemmerModules[language]}`) as { stemmer: Stem };
  return module.stemmer;
}

function makeTerms(language: string | undefined): LanguageTerms {
  const stemmed = language !== undefined && Object.hasOwn(stemmerModules, language);
  const stem = stemmed ? loadStemmer(language) : undefined;
  const stops = language === undefined ? undefined : stopWords(language, foldDiacritics);
  const tokenize = (text: string) => text.split(TOKEN_SEPARATOR).filter((token) => token !== "");
  const processTerm = (term: string): string | null => {
    const lower = term.toLowerCase();
    if (SINGLE_LETTER.test(lower)) return null;
    const folded = foldDiacritics(lower);
    if (stops?.has(folded)) return null;
    if (stem === undefined || HAS_DIGIT.test(lower)) return folded;
    return foldDiacritics(stem(lower));
  };
  return {
    language,
    stems: stemmed,
    tokenize,
    processTerm,
    terms: (text) => tokenize(text).flatMap((token) => processTerm(token) ?? []),
  };
}

const instances = new Map<string | undefined, LanguageTerms>();

/**
 * The steps for a site of `language` (a BCP 47 tag such as "de-CH"; its primary subtag
 * counts). One instance per language, shared: the steps hold no state.
 */
export function languageTerms(language: string | undefined): LanguageTerms {
  const subtag = primarySubtag(language);
  let terms = instances.get(subtag);
  if (terms === undefined) {
    terms = makeTerms(subtag);
    instances.set(subtag, terms);
  }
  return terms;
}
