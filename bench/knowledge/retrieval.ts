/**
 * The knowledge benchmark's retrieval evaluation over the fixture site (Lindenhof Dental,
 * test/fixtures/knowledge-site/): every page a crawl would fetch (robots.txt's rules for the
 * crawler applied) extracted and cut into passages as a crawl stores them (page-content.ts,
 * passages.ts), indexed with keyword search alone for the site's language (English; its German
 * pages are in the same index), then the visitor questions of questions.json asked of it
 * (evaluate.ts). `node --import tsx bench/knowledge/retrieval.ts [--json]`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import robotsParserModule from "robots-parser";
import {
  KnowledgeIndex,
  MAX_SEARCH_LIMIT,
} from "../../core/intelligence/knowledge/knowledge-index.ts";
import { extractContent } from "../../core/intelligence/knowledge/page-content.ts";
import { toPassages } from "../../core/intelligence/knowledge/passages.ts";
import {
  KNOWLEDGE_SITE_PAGES,
  knowledgePageFile,
} from "../../test/helpers/knowledge-site-server.ts";
import { evaluate, type Evaluation, type EvaluationQuestion } from "./evaluate.ts";

// robots-parser is CommonJS typed as an ES module's default export (as in crawl-site.ts).
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

const ORIGIN = "https://lindenhof-dental.example";
const SITE_LANGUAGE = "en";
const USER_AGENT = "Sitevoice-Crawler";
const here = path.dirname(fileURLToPath(import.meta.url));

export interface RetrievalRun extends Evaluation {
  pages: number;
  passages: number;
}

/** Indexes the fixture site as a crawl would and asks it every question. */
export function knowledgeRetrieval(): RetrievalRun {
  const folder = path.dirname(knowledgePageFile("/"));
  const robotsText = readFileSync(path.join(folder, "robots.txt"), "utf8");
  const robots = robotsParser(`${ORIGIN}/robots.txt`, robotsText.replaceAll("{origin}", ORIGIN));
  const pages = KNOWLEDGE_SITE_PAGES.filter((page) =>
    robots.isAllowed(`${ORIGIN}${page}`, USER_AGENT),
  );
  const passages = pages.flatMap((page) =>
    toPassages(extractContent(readFileSync(knowledgePageFile(page), "utf8"), `${ORIGIN}${page}`)),
  );
  const index = KnowledgeIndex.build(passages, SITE_LANGUAGE);
  const questions = JSON.parse(
    readFileSync(path.join(here, "questions.json"), "utf8"),
  ) as EvaluationQuestion[];
  const result = evaluate(
    (question) => index.search(question, MAX_SEARCH_LIMIT),
    questions,
    ORIGIN,
  );
  return { ...result, pages: pages.length, passages: passages.length };
}

const figure = (value: number) => value.toFixed(3);

/** The run as Markdown for bench/RESULTS.md. */
export function retrievalMarkdown(run: RetrievalRun): string {
  const lines = [
    `${run.questions} answerable questions over ${run.pages} pages (${run.passages} passages), keyword search alone, ${MAX_SEARCH_LIMIT} hits per question:`,
    "",
    "| by | recall@3 | MRR |",
    "| --- | --- | --- |",
    `| page | ${figure(run.page.recall3)} | ${figure(run.page.mrr)} |`,
    `| section | ${figure(run.section.recall3)} | ${figure(run.section.mrr)} |`,
    "",
    `Section not in the top 3 (${run.misses.length}; "page" where the page is not either):`,
    "",
    ...run.misses.map(
      (miss) =>
        `- ${miss.pageRank === null || miss.pageRank > 3 ? "page" : "section"}: "${miss.question}" → ${miss.expected}; found ${miss.found.slice(0, 3).join(", ") || "nothing"}`,
    ),
    "",
    `Questions the site does not answer (${run.unanswerable.length}), the top hit and its score:`,
    "",
    ...run.unanswerable.map(
      (u) =>
        `- "${u.question}": ${u.top ?? "nothing"}${u.topScore === null ? "" : ` (${u.topScore})`}`,
    ),
    "",
  ];
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const run = knowledgeRetrieval();
  console.log(retrievalMarkdown(run));
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify({ page: run.page, section: run.section, questions: run.questions }));
  }
}
