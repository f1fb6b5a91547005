/**
 * The knowledge benchmark's site (bench/knowledge-html.ts), read by the crawl's own extractor:
 * every page gives its sections, each with an id to scroll to, one passage each, whatever the
 * layout of the section, and none of the page's boilerplate.
 */
import { expect } from "chai";
import { extractContent } from "../core/intelligence/knowledge/page-content.ts";
import { toPassages } from "../core/intelligence/knowledge/passages.ts";
import { pagePath } from "../bench/crawl-html.ts";
import { knowledgePageHtml } from "../bench/knowledge-html.ts";
import { benchPage, PASSAGES_PER_PAGE } from "../bench/knowledge-passages.ts";

const PAGES = 500;
const ORIGIN = "http://127.0.0.1:8080";

/** What a crawl keeps of page `i`. */
function extracted(i: number) {
  const url = `${ORIGIN}${pagePath(i)}`;
  return extractContent(knowledgePageHtml(i, PAGES), url);
}

describe("the knowledge benchmark's pages", () => {
  it("give each of their generated sections, in order, under the page's h1", () => {
    const page = benchPage(7);
    const content = extracted(7);
    expect(content.sections.map((section) => section.headings[0])).to.deep.equal(
      Array(PASSAGES_PER_PAGE).fill(page.h1),
    );
    expect(content.sections.map((section) => section.headings.at(-1))).to.deep.equal(
      page.sections.map((section) => section.heading),
    );
  });

  it("give every section an id of its own", () => {
    const ids = extracted(12).sections.map((section) => section.sectionId);
    expect(ids).to.not.include(null);
    expect(new Set(ids).size).to.equal(PASSAGES_PER_PAGE);
  });

  it("keep the page's title and language", () => {
    const content = extracted(3);
    expect(content.title).to.equal(benchPage(3).title);
    expect(content.language).to.equal("en");
  });

  it("make one passage of every section: 5,000 passages on 500 pages", () => {
    let passages = 0;
    for (let i = 0; i < PAGES; i++) passages += toPassages(extracted(i)).length;
    expect(passages).to.equal(PAGES * PASSAGES_PER_PAGE);
  });

  it("keep every word of a section's generated text", () => {
    const page = benchPage(21);
    const words = (text: string) => text.match(/[a-z0-9:]+/gi) ?? [];
    expect(extracted(21).sections.map((section) => words(section.text))).to.deep.equal(
      page.sections.map((section) => words(section.text)),
    );
  });

  it("lay sections out as paragraphs, lists and sub-sections", () => {
    const sections = [0, 1, 2, 3].flatMap((i) => extracted(i).sections);
    expect(sections.some((section) => section.text.split("\n").length > 1)).to.equal(true);
    expect(sections.some((section) => section.text.startsWith("- "))).to.equal(true);
    expect(sections.some((section) => section.headings.length === 3)).to.equal(true);
  });

  it("leave the navigation, the cookie banner, the related links and the footer out", () => {
    const text = extracted(5)
      .sections.map((section) => section.text)
      .join("\n");
    for (const boilerplate of ["Home", "Accept all cookies", "Related pages", "Imprint"]) {
      expect(text, boilerplate).to.not.include(boilerplate);
    }
  });

  it("are the same on every call", () => {
    expect(knowledgePageHtml(42, PAGES)).to.equal(knowledgePageHtml(42, PAGES));
  });
});
