import { expect } from "chai";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PageContent } from "../core/intelligence/knowledge/knowledge-types.ts";
import { extractContent } from "../core/intelligence/knowledge/page-content.ts";
import { toPassages } from "../core/intelligence/knowledge/passages.ts";
import { KNOWLEDGE_SITE_CONTENT } from "./helpers/knowledge-site-content.ts";
import { KNOWLEDGE_SITE_PAGES, knowledgePageFile } from "./helpers/knowledge-site-server.ts";

const ORIGIN = "https://lindenhof-dental.example";

const contentOf = (page: string): PageContent =>
  extractContent(readFileSync(knowledgePageFile(page), "utf8"), `${ORIGIN}${page}`);

/** Text found only in the fixture's boilerplate, never in its content. */
const BOILERPLATE = [
  // The skip link, the header, the navigation
  "Skip to content",
  "Your dentist in Freiburg-Wiehre",
  "About us",
  "Braces & aligners",
  "Show treatments",
  "Startseite",
  "Öffnungszeiten (englisch)",
  "Termine:",
  // The footers
  "Lindenhofstraße 12\n79100",
  "Mon–Fri from 8:00",
  "All rights reserved",
  "Impressum",
  "Datenschutz",
  // The cookie banners
  "cookie",
  "Cookie",
  "Accept all",
  "Before you continue",
  "Alle akzeptieren",
  "Nur notwendige",
  // Sidebars of links
  "Quick links",
  "See also",
  "Questions? Call",
  // Scripts, templates, noscript, hidden parts, decorative icons, form controls, the map
  "dataLayer",
  "schema.org",
  "{{name}}",
  "JavaScript",
  "Summer hours 2023",
  "✓",
  "✔",
  "Your name",
  "Send request",
  "Check-up\nCleaning",
  "Map",
];

describe("the knowledge fixture site's content", () => {
  for (const page of KNOWLEDGE_SITE_PAGES) {
    it(`${page}: its title, language and sections, exactly`, () => {
      expect(contentOf(page)).to.deep.equal({
        url: `${ORIGIN}${page}`,
        ...KNOWLEDGE_SITE_CONTENT[page],
      });
    });
  }

  for (const page of KNOWLEDGE_SITE_PAGES) {
    it(`${page}: nothing of the navigation, header, footer, cookie banner, scripts or hidden parts`, () => {
      const { sections } = contentOf(page);
      const text = sections
        .map((section) => [...section.headings, section.text].join("\n"))
        .join("\n");
      expect(BOILERPLATE.filter((phrase) => text.includes(phrase))).to.deep.equal([]);
    });
  }

  it("has a page of its own for each expected content and a file for each page", () => {
    expect(Object.keys(KNOWLEDGE_SITE_CONTENT)).to.deep.equal(KNOWLEDGE_SITE_PAGES);
    const folder = path.join(
      path.dirname(fileURLToPath(import.meta.url)),
      "fixtures/knowledge-site",
    );
    expect(
      KNOWLEDGE_SITE_PAGES.map((page) => path.relative(folder, knowledgePageFile(page))),
    ).to.include.members(["index.html", "de/index.html", "services/cleaning.html"]);
  });

  it("/opening-hours: a passage for each section, with the heading path and the section id", () => {
    expect(
      toPassages(contentOf("/opening-hours")).map(({ id, title, heading, sectionId }) => ({
        id,
        title,
        heading,
        sectionId,
      })),
    ).to.deep.equal([
      {
        id: `${ORIGIN}/opening-hours#0`,
        title: "Opening hours – Lindenhof Dental",
        heading: "Opening hours > Regular hours",
        sectionId: "weekly-hours",
      },
      {
        id: `${ORIGIN}/opening-hours#1`,
        title: "Opening hours – Lindenhof Dental",
        heading: "Opening hours > Reaching us by phone",
        sectionId: "phone-hours",
      },
      {
        id: `${ORIGIN}/opening-hours#2`,
        title: "Opening hours – Lindenhof Dental",
        heading: "Opening hours > Holidays and closures",
        sectionId: "holidays",
      },
    ]);
  });
});
