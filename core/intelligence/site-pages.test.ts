/**
 * The crawl's pages as the service reads them back: the one form two URLs of a page share, the
 * section ids scroll_to is offered (the visitor's page first, capped) and the checks on the
 * stored JSON.
 */
import { expect } from "chai";
import { MAX_SECTION_IDS, pageKey, parsePages, sectionIdsFor, siteViewOf } from "./site-pages.ts";

const page = (url: string, sectionIds: string[]) => ({
  url,
  title: null,
  description: null,
  sectionIds,
  sections: 0,
});

describe("crawled pages", () => {
  it("match a page however its URL is written: query, fragment and trailing slash aside", () => {
    const key = pageKey("https://shop.example/sofas");
    for (const url of [
      "https://shop.example/sofas/",
      "https://SHOP.example/sofas?utm_source=x",
      "https://shop.example/sofas#oslo",
      "https://shop.example:443/sofas",
    ]) {
      expect(pageKey(url), url).to.equal(key);
    }
    for (const url of [
      "http://shop.example/sofas",
      "https://shop.example/Sofas",
      "https://shop.example:8443/sofas",
      "https://other.example/sofas",
    ]) {
      expect(pageKey(url), url).to.not.equal(key);
    }
    expect(pageKey("https://shop.example")).to.equal(pageKey("https://shop.example/"));
    expect(pageKey("mailto:a@shop.example")).to.equal(undefined);
    expect(pageKey("not a url")).to.equal(undefined);
  });

  it(`offers the current page's ids first, then the others once each, at most ${MAX_SECTION_IDS}`, () => {
    const many = Array.from({ length: MAX_SECTION_IDS }, (_, i) => `s${i}`);
    const pages = [
      page("https://shop.example/", ["hero", ...many]),
      page("https://shop.example/sofas", ["oslo", "hero"]),
    ];
    const { sectionIds: ids, allSectionIds } = sectionIdsFor(pages, "https://shop.example/sofas/");
    expect(ids).to.have.length(MAX_SECTION_IDS);
    expect(ids.slice(0, 3)).to.deep.equal(["oslo", "hero", "s0"]);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(allSectionIds).to.equal(false);
    expect(sectionIdsFor(pages).sectionIds.slice(0, 2)).to.deep.equal(["hero", "s0"]);
    expect(sectionIdsFor([])).to.deep.equal({ sectionIds: [], allSectionIds: true });
  });

  it(`says every id is offered when the site has ${MAX_SECTION_IDS} at most`, () => {
    const many = Array.from({ length: MAX_SECTION_IDS - 1 }, (_, i) => `s${i}`);
    const pages = [
      page("https://shop.example/", many),
      page("https://shop.example/a", ["s0", "x"]),
    ];
    expect(sectionIdsFor(pages)).to.deep.equal({ sectionIds: [...many, "x"], allSectionIds: true });
  });

  it("reads back only well-formed pages, and the origin of the crawled domain", () => {
    const stored = JSON.stringify([
      { url: "https://shop.example/", title: "Home", description: null, sectionIds: ["a", 3, ""] },
      { title: "no url" },
      "text",
      null,
    ]);
    expect(parsePages(stored)).to.deep.equal([
      {
        url: "https://shop.example/",
        title: "Home",
        description: null,
        sectionIds: ["a"],
        sections: 0,
      },
    ]);
    expect(parsePages("{not json")).to.deep.equal([]);
    expect(parsePages(null)).to.deep.equal([]);
    expect(
      siteViewOf({ pages: stored, domain: "Shop.example" }, "ignored.example").origin,
    ).to.equal("https://shop.example");
    expect(siteViewOf({ pages: "[]", domain: null }, "localhost:3000")).to.deep.equal({
      origin: "http://localhost:3000",
      totalPages: 0,
      pages: [],
      knowledge: { updatedAt: null },
    });
  });

  it("counts each page's sections the site's knowledge holds, and says when it was built", () => {
    const stored = JSON.stringify([
      page("https://shop.example/", ["hero"]),
      page("https://shop.example/sofas", []),
    ]);
    const view = siteViewOf({ pages: stored, domain: "shop.example" }, "shop.example", {
      sections: new Map([["https://shop.example/", 4]]),
      updatedAt: "2026-11-21T10:04:05.123Z",
    });
    expect(view.pages.map((p) => p.sections)).to.deep.equal([4, 0]);
    expect(view.knowledge).to.deep.equal({ updatedAt: "2026-11-21T10:04:05.123Z" });
  });
});
