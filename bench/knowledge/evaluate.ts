/**
 * The knowledge benchmark's retrieval evaluation: for questions a visitor would ask, each with
 * the page (and section) that answers it, how often a search puts that page among its first 3
 * hits (recall@3) and how high (mean reciprocal rank over the hits given), by page and by
 * section. Questions the site cannot answer (`path: null`) stay out of the figures; what a
 * search found for them is reported, so a bad top hit shows.
 */

/** One hit of the search evaluated; `score` only for the report. */
export interface Found {
  url: string;
  section_id: string | null;
  score?: number;
}

export interface EvaluationQuestion {
  question: string;
  /** The answering page's path on the origin; null when the site holds no answer. */
  path: string | null;
  /** The answering section's id; null for text before the page's first heading. */
  section_id: string | null;
  /** The question's language, passed to the search. */
  language?: string;
}

export interface Figures {
  recall3: number;
  mrr: number;
}

/** An answerable question whose section is not among the first 3 hits. */
export interface Miss {
  question: string;
  /** `url#section_id` (the URL alone for a section of null). */
  expected: string;
  /** The hits, as `url#section_id`. */
  found: string[];
  /** Rank (from 1) of the first hit on the right page; null when none. */
  pageRank: number | null;
  /** Rank of the first hit in the right section; null when none. */
  sectionRank: number | null;
}

export interface Unanswerable {
  question: string;
  /** The top hit as `url#section_id`; null when nothing was found. */
  top: string | null;
  topScore: number | null;
}

export interface Evaluation {
  page: Figures;
  section: Figures;
  /** How many answerable questions the figures are over. */
  questions: number;
  misses: Miss[];
  unanswerable: Unanswerable[];
}

/** A URL without fragment or trailing slash (but the root's): two spellings of a page, one key. */
function pageKey(url: string): string {
  const parsed = new URL(url);
  parsed.hash = "";
  if (parsed.pathname !== "/") parsed.pathname = parsed.pathname.replace(/\/+$/, "");
  return parsed.href;
}

const label = (url: string, sectionId: string | null) =>
  sectionId === null ? url : `${url}#${sectionId}`;

/** The rank (from 1) of the first of `found` that `matches`; null when none does. */
function rankOf(found: Found[], matches: (hit: Found) => boolean): number | null {
  const index = found.findIndex(matches);
  return index < 0 ? null : index + 1;
}

function figures(ranks: (number | null)[]): Figures {
  if (ranks.length === 0) return { recall3: 0, mrr: 0 };
  const recalled = ranks.filter((rank) => rank !== null && rank <= 3).length;
  const reciprocal = ranks.reduce<number>((sum, rank) => sum + (rank === null ? 0 : 1 / rank), 0);
  return { recall3: recalled / ranks.length, mrr: reciprocal / ranks.length };
}

/** Evaluates `search` (best hit first) on `questions` of the site at `origin`. */
export function evaluate(
  search: (question: string, language?: string) => Found[],
  questions: EvaluationQuestion[],
  origin: string,
): Evaluation {
  const pageRanks: (number | null)[] = [];
  const sectionRanks: (number | null)[] = [];
  const misses: Miss[] = [];
  const unanswerable: Unanswerable[] = [];
  for (const { question, path, section_id, language } of questions) {
    const found = search(question, language);
    if (path === null) {
      const top = found[0];
      unanswerable.push({
        question,
        top: top === undefined ? null : label(top.url, top.section_id),
        topScore: top?.score ?? null,
      });
      continue;
    }
    const page = pageKey(new URL(path, origin).href);
    const pageRank = rankOf(found, (hit) => pageKey(hit.url) === page);
    const sectionRank = rankOf(
      found,
      (hit) => pageKey(hit.url) === page && hit.section_id === section_id,
    );
    pageRanks.push(pageRank);
    sectionRanks.push(sectionRank);
    if (sectionRank === null || sectionRank > 3) {
      misses.push({
        question,
        expected: label(`${origin}${path}`, section_id),
        found: found.map((hit) => label(hit.url, hit.section_id)),
        pageRank,
        sectionRank,
      });
    }
  }
  return {
    page: figures(pageRanks),
    section: figures(sectionRanks),
    questions: pageRanks.length,
    misses,
    unanswerable,
  };
}
