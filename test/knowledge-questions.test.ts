import { expect } from "chai";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { extractContent } from "../core/intelligence/knowledge/page-content.ts";
import { KNOWLEDGE_SITE_PAGES, knowledgePageFile } from "./helpers/knowledge-site-server.ts";

/** A visitor's question of the retrieval evaluation, with where the fixture site answers it. */
interface Question {
  question: string;
  /** The page that answers; null when none does. */
  path: string | null;
  section_id: string | null;
  language: string;
  /** Words of the answering section's text that answer the question; null when none does. */
  answer: string | null;
}

const FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../bench/knowledge/questions.json",
);
const QUESTIONS = JSON.parse(readFileSync(FILE, "utf8")) as Question[];

const sectionsOf = (page: string) =>
  extractContent(
    readFileSync(knowledgePageFile(page), "utf8"),
    `https://lindenhof-dental.example${page}`,
  ).sections;

describe("the knowledge retrieval questions", () => {
  it("are at least 60, 8 of them in German with an answer and 4 without any answer", () => {
    expect(QUESTIONS.length).to.be.at.least(60);
    expect(QUESTIONS.filter((q) => q.language === "de" && q.path !== null).length).to.be.at.least(
      8,
    );
    expect(QUESTIONS.filter((q) => q.path === null).length).to.be.at.least(4);
  });

  it("are asked once each", () => {
    const asked = QUESTIONS.map((q) => q.question.toLowerCase());
    expect(asked.filter((question, index) => asked.indexOf(question) !== index)).to.deep.equal([]);
  });

  for (const q of QUESTIONS) {
    if (q.path === null) {
      it(`"${q.question}": no page answers it`, () => {
        expect([q.section_id, q.answer]).to.deep.equal([null, null]);
      });
      continue;
    }
    const { path: page, section_id: sectionId, answer } = q;
    it(`"${q.question}": answered in the text of ${page}#${sectionId}`, () => {
      expect(KNOWLEDGE_SITE_PAGES).to.include(page);
      expect(page.startsWith("/staff/"), "a page robots.txt keeps crawlers out of").to.equal(false);
      const sections = sectionsOf(page).filter((section) => section.sectionId === sectionId);
      expect(sections, "sections with that id").to.not.deep.equal([]);
      expect(sections.some((section) => section.text.includes(answer!))).to.equal(true);
      const headings = sections.flatMap((section) => section.headings.map((h) => h.toLowerCase()));
      expect(headings, "a question copied from a heading").to.not.include(q.question.toLowerCase());
    });
  }
});
