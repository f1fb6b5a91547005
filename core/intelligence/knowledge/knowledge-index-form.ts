/**
 * The knowledge index as a string stored with the site, and back: compact so that a cold
 * instance loads 5,000 passages' index within its budget (one JSON.parse, no per-posting
 * objects; see term-postings.ts). Each page's URL and title are written once; the postings are
 * one base64 string.
 *
 * ```
 * { "format": 1, "language": "de" | null,
 *   "pages": [[url, title], …],
 *   "passages": [[page, id, heading, sectionId, text], …],
 *   "lengths": [title, heading, text, …],   // distinct terms per passage and field
 *   "averages": [title, heading, text],     // their means, as MiniSearch's BM25 reads them
 *   "terms": "term term …",                 // space-separated, in the postings' order
 *   "postings": "<base64>" }
 * ```
 */
import type { Passage } from "./knowledge-types.ts";
import { locateTerms, PostingsError } from "./term-postings.ts";

/** The version of the stored form; a string of another version is rebuilt from the passages. */
export const KNOWLEDGE_INDEX_FORMAT = 1;

/** The indexed fields, in MiniSearch's field-id order. */
export const INDEX_FIELDS = ["title", "heading", "text"] as const;

/** What an index is made of, whether just built or loaded from its string. */
export interface IndexParts {
  language: string | undefined;
  passages: Passage[];
  /** Distinct terms per passage and field, INDEX_FIELDS.length numbers per passage. */
  lengths: number[];
  averages: number[];
  terms: string[];
  postings: Uint8Array;
}

/** Checked parts, with where each term's postings start. */
export interface LocatedParts extends IndexParts {
  offsets: Uint32Array;
}

/**
 * Thrown by `KnowledgeIndex.load` for a string of another format version or one that is not an
 * index at all: the caller rebuilds the index from the passages.
 */
export class KnowledgeIndexFormatError extends Error {
  constructor(message: string) {
    super(`knowledge index: ${message}`);
    this.name = "KnowledgeIndexFormatError";
  }
}

type StoredPassage = [
  page: number,
  id: string,
  heading: string,
  sectionId: string | null,
  text: string,
];

interface StoredIndex {
  format: number;
  language: string | null;
  pages: [url: string, title: string][];
  passages: StoredPassage[];
  lengths: number[];
  averages: number[];
  terms: string;
  postings: string;
}

/** The string to store for `parts`. */
export function writeIndex(parts: IndexParts): string {
  const pageNumbers = new Map<string, number>();
  const pages: StoredIndex["pages"] = [];
  const passages = parts.passages.map((p): StoredPassage => {
    const key = `${p.url}\n${p.title}`;
    let page = pageNumbers.get(key);
    if (page === undefined) {
      page = pages.push([p.url, p.title]) - 1;
      pageNumbers.set(key, page);
    }
    return [page, p.id, p.heading, p.sectionId, p.text];
  });
  const stored: StoredIndex = {
    format: KNOWLEDGE_INDEX_FORMAT,
    language: parts.language ?? null,
    pages,
    passages,
    lengths: parts.lengths,
    averages: parts.averages,
    terms: parts.terms.join(" "),
    postings: Buffer.from(parts.postings).toString("base64"),
  };
  return JSON.stringify(stored);
}

const isString = (value: unknown): value is string => typeof value === "string";
const isCount = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 0;

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new KnowledgeIndexFormatError(what);
}

function readPassages(stored: StoredIndex): Passage[] {
  const { pages, passages } = stored;
  check(Array.isArray(pages) && Array.isArray(passages), "pages and passages are not lists");
  for (const page of pages) {
    check(Array.isArray(page) && isString(page[0]) && isString(page[1]), "a page is malformed");
  }
  return passages.map((p) => {
    const ok =
      Array.isArray(p) &&
      Number.isInteger(p[0]) &&
      pages[p[0]] !== undefined &&
      isString(p[1]) &&
      isString(p[2]) &&
      (p[3] === null || isString(p[3])) &&
      isString(p[4]);
    check(ok, "a passage is malformed");
    const [url, title] = pages[p[0]]!;
    return { id: p[1], url, title, heading: p[2], sectionId: p[3], text: p[4] };
  });
}

/** The parts of a stored index; throws KnowledgeIndexFormatError for anything else. */
export function readIndex(serialized: string): LocatedParts {
  let stored: StoredIndex;
  try {
    stored = JSON.parse(serialized) as StoredIndex;
  } catch (error) {
    throw new KnowledgeIndexFormatError(`not JSON (${(error as Error).message})`);
  }
  check(typeof stored === "object" && stored !== null, "not an object");
  check(
    stored.format === KNOWLEDGE_INDEX_FORMAT,
    `format ${String(stored.format)}, not ${KNOWLEDGE_INDEX_FORMAT}`,
  );
  check(stored.language === null || isString(stored.language), "language is malformed");
  const passages = readPassages(stored);
  const { lengths, averages, terms, postings } = stored;
  const fields = INDEX_FIELDS.length;
  check(
    Array.isArray(lengths) && lengths.length === passages.length * fields && lengths.every(isCount),
    "field lengths do not fit the passages",
  );
  check(
    Array.isArray(averages) && averages.length === fields && averages.every(Number.isFinite),
    "average field lengths are malformed",
  );
  check(isString(terms) && isString(postings), "terms or postings are malformed");
  const termList = terms === "" ? [] : terms.split(" ");
  const bytes = new Uint8Array(Buffer.from(postings, "base64"));
  const parts = {
    language: stored.language ?? undefined,
    passages,
    lengths,
    averages,
    terms: termList,
    postings: bytes,
  };
  try {
    return locateParts(parts);
  } catch (error) {
    if (!(error instanceof PostingsError)) throw error;
    throw new KnowledgeIndexFormatError(`postings do not fit: ${error.message}`);
  }
}

/** `parts` with where each term's postings start; throws PostingsError if they do not fit. */
export function locateParts(parts: IndexParts): LocatedParts {
  const { postings, terms, passages } = parts;
  const offsets = locateTerms(postings, terms.length, INDEX_FIELDS.length, passages.length);
  return { ...parts, offsets };
}
