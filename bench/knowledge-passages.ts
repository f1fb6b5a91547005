/**
 * The knowledge benchmarks' generated site: `pages` pages of PASSAGES_PER_PAGE sections each,
 * about 550 characters of text apiece, the same on every run; as passages for the index alone
 * (knowledge-index-size.ts), as HTML for the crawl of the whole benchmark (knowledge-html.ts).
 *
 * Text is English-like so that the index's work and size are a real site's: a third of the
 * words are stop words and common site words, the rest drawn by a Zipf law from a vocabulary of
 * VOCABULARY made-up words with English endings (-s, -ing, -ed, -ion …) for the stemmer to cut,
 * plus numbers, times and prices. About 20,000 distinct terms over 5,000 passages, as Heaps' law
 * gives for half a million words of prose.
 */
import type { Passage } from "../core/intelligence/knowledge/knowledge-types.ts";

export const PASSAGES_PER_PAGE = 10;
const VOCABULARY = 24_000;
const TEXT_CHARS = 550;

const COMMON = (
  "the of and to a in is you for on with are our we your be at this as from by or can it " +
  "an will all have not more if us when do any which their there also after before each " +
  "please book table open hours order delivery price free call contact page service help " +
  "day week time new year team guest room visit store online account card payment team"
).split(" ");

const ONSETS = "b c d f g h k l m n p r s t v w br cr dr fl gr pl pr sh st tr ch th".split(" ");
const VOWELS = "a e i o u ai ea ee oo ou ie".split(" ");
const CODAS = " n r s t l m nd st rt ck ng".split(" ");
const ENDINGS = ["", "", "", "s", "ing", "ed", "er", "ion", "ions", "ly", "ment", "ness", "able"];

/** xorshift32 from a seed: the same numbers on every run. */
function random(seed: number): () => number {
  let state = Math.imul(seed + 1, 0x9e3779b1) >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}

function pick<T>(items: readonly T[], next: () => number): T {
  return items[Math.floor(next() * items.length)]!;
}

function makeWord(k: number): string {
  const next = random(k + 1_000_003);
  const syllables = 1 + Math.floor(next() * 3);
  let word = "";
  for (let s = 0; s < syllables; s++) word += pick(ONSETS, next) + pick(VOWELS, next);
  return word + pick(CODAS, next) + pick(ENDINGS, next);
}

const vocabulary = Array.from({ length: VOCABULARY }, (_, k) => makeWord(k));

/** Cumulative Zipf (s = 1) weights over the vocabulary, for sampling by binary search. */
const zipf = (() => {
  const cumulative = new Float64Array(VOCABULARY);
  let total = 0;
  for (let r = 0; r < VOCABULARY; r++) cumulative[r] = total += 1 / (r + 1);
  return cumulative.map((c) => c / total);
})();

function zipfWord(next: () => number): string {
  const u = next();
  let low = 0;
  let high = VOCABULARY - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (zipf[mid]! < u) low = mid + 1;
    else high = mid;
  }
  return vocabulary[low]!;
}

function token(next: () => number): string {
  const roll = next();
  if (roll < 0.33) return pick(COMMON, next);
  if (roll < 0.35) return String(Math.floor(next() * 500));
  if (roll < 0.36) return `${8 + Math.floor(next() * 12)}:${next() < 0.5 ? "00" : "30"}`;
  return zipfWord(next);
}

function sentence(next: () => number, words: number): string {
  const text = Array.from({ length: words }, () => token(next)).join(" ");
  return text[0]!.toUpperCase() + text.slice(1) + ".";
}

function text(next: () => number, chars: number): string {
  let out = "";
  while (out.length < chars) out += (out ? " " : "") + sentence(next, 6 + Math.floor(next() * 12));
  return out;
}

/** One generated page: its title, its h1 and its sections, each a heading and its text. */
export interface BenchPage {
  title: string;
  h1: string;
  sections: { heading: string; text: string }[];
}

/** Page `i`, the same on every run. */
export function benchPage(i: number): BenchPage {
  const next = random(i);
  const title = `${sentence(next, 3).slice(0, -1)} | Trattoria`;
  const h1 = sentence(next, 3).slice(0, -1);
  const sections = Array.from({ length: PASSAGES_PER_PAGE }, () => ({
    heading: sentence(next, 2 + Math.floor(next() * 4)).slice(0, -1),
    text: text(next, TEXT_CHARS - 90 + Math.floor(next() * 80)).slice(0, 800),
  }));
  return { title, h1, sections };
}

/** The `pages × PASSAGES_PER_PAGE` passages, page by page. */
export function benchPassages(pages: number): Passage[] {
  const passages: Passage[] = [];
  for (let i = 0; i < pages; i++) {
    const url = `https://bench.example/guides/${i}`;
    const { title, h1, sections } = benchPage(i);
    sections.forEach(({ heading, text }, k) => {
      passages.push({
        id: `${url}#${k}`,
        url,
        title,
        heading: `${h1} > ${heading}`,
        sectionId: `part-${k}`,
        text,
      });
    });
  }
  return passages;
}

/** `count` questions of 2–6 words from the site's own vocabulary, some with a typo. */
export function benchQuestions(count: number): string[] {
  const next = random(987_654);
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 2 + Math.floor(next() * 5) }, () => token(next));
    if (next() < 0.2) {
      const w = words.length - 1;
      words[w] = words[w]!.slice(0, -1) + "x";
    }
    return words.join(" ");
  });
}
