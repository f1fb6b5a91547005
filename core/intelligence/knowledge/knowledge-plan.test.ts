/**
 * What a crawl's end writes of a site's pages, worked out from its result and the stored pages:
 * which pages are written, renewed, removed or kept, and the crawl's counts.
 */
import { expect } from "chai";
import type { CrawlResult, PageText } from "../crawler/crawl-types.ts";
import type { KnownPageRow } from "../../store/repos/site-knowledge-repo.ts";
import { knownPages, NO_TEXT, planKnowledge, urlHash } from "./knowledge-plan.ts";
import type { Passage } from "./knowledge-types.ts";

const ORIGIN = "https://bakery.example";
const CRAWL = { siteId: "bakery", crawlId: "crawl_2", done: true, now: 1_000 };

const passage = (url: string, text: string): Passage => ({
  id: `${url}#0`,
  url,
  title: "Page",
  heading: "Page",
  sectionId: null,
  text,
});

/** A stored page of path `path`, its text hashed as `hash`. */
function stored(path: string, hash = `hash-${path}`, overrides: Partial<KnownPageRow> = {}) {
  const url = `${ORIGIN}${path}`;
  return {
    site_id: "bakery",
    url_hash: urlHash(url),
    url,
    etag: `"${path}"`,
    last_modified: null,
    content_hash: hash,
    title: "Page",
    description: null,
    section_ids: "[]",
    links: "[]",
    language: "en",
    section_count: 1,
    passage_count: 1,
    crawl_id: "crawl_1",
    updated_at: 500,
    ...overrides,
  } satisfies KnownPageRow;
}

/** What the crawler answers of a page of path `path`. */
function text(path: string, change: PageText["change"], overrides: Partial<PageText> = {}) {
  const url = `${ORIGIN}${path}`;
  const content =
    change === "unchanged"
      ? undefined
      : { language: "en", sectionCount: 1, passages: [passage(url, `text of ${path}`)] };
  return {
    url,
    change,
    notModified: change === "unchanged",
    etag: `"${path}"`,
    lastModified: null,
    contentHash: `hash-${path}${change === "changed" ? "-2" : ""}`,
    links: [],
    content,
    ...overrides,
  } satisfies PageText;
}

function result(texts: PageText[], more: Partial<CrawlResult> = {}): CrawlResult {
  return {
    origin: ORIGIN,
    pages: texts.map((t) => ({ url: t.url, title: "Page", description: null, sectionIds: [] })),
    texts,
    errors: [],
    pagesAsked: texts.length,
    unreachable: [],
    fetched: texts.length + 1,
    startedAt: 0,
    finishedAt: 1,
    ...more,
  };
}

describe("a crawl's plan for the site's knowledge", () => {
  it("writes new and changed pages whole, and counts them changed", () => {
    const plan = planKnowledge(
      result([text("/", "unchanged"), text("/menu", "changed"), text("/hours", "new")]),
      [stored("/"), stored("/menu")],
      CRAWL,
    );
    expect(plan.put.map((row) => [row.url, row.crawl_id, row.content_hash])).to.deep.equal([
      [`${ORIGIN}/menu`, "crawl_2", "hash-/menu-2"],
      [`${ORIGIN}/hours`, "crawl_2", "hash-/hours"],
    ]);
    expect(JSON.parse(plan.put[1]!.passages)).to.deep.equal([
      passage(`${ORIGIN}/hours`, "text of /hours"),
    ]);
    expect(plan.touch).to.deep.equal([]);
    expect(plan.counts).to.deep.equal({
      pages_fetched: 3,
      pages_unchanged: 1,
      pages_changed: 2,
      pages_removed: 0,
    });
  });

  it("removes the stored pages the crawl no longer found, not those that failed for now", () => {
    const plan = planKnowledge(
      result([text("/", "unchanged")], {
        pagesAsked: 3,
        errors: [
          { url: `${ORIGIN}/busy`, reason: "HTTP 503" },
          { url: `${ORIGIN}/gone`, reason: "HTTP 404" },
        ],
        unreachable: [`${ORIGIN}/busy`],
      }),
      [stored("/"), stored("/busy"), stored("/gone"), stored("/unlinked")],
      CRAWL,
    );
    expect(plan.remove).to.deep.equal([urlHash(`${ORIGIN}/gone`), urlHash(`${ORIGIN}/unlinked`)]);
    expect(plan.counts.pages_removed).to.equal(2);
    expect(plan.failures).to.deep.equal([
      { url: `${ORIGIN}/busy`, reason: "HTTP 503" },
      { url: `${ORIGIN}/gone`, reason: "HTTP 404" },
    ]);
  });

  it("writes nothing of a crawl that failed, and removes nothing", () => {
    const plan = planKnowledge(
      result([], { errors: [{ url: `${ORIGIN}/robots.txt`, reason: "HTTP 500" }] }),
      [stored("/"), stored("/menu")],
      { ...CRAWL, done: false },
    );
    expect(plan.put).to.deep.equal([]);
    expect(plan.remove).to.deep.equal([]);
    expect(plan.counts).to.deep.equal({
      pages_fetched: 0,
      pages_unchanged: 0,
      pages_changed: 0,
      pages_removed: 0,
    });
  });

  it("renews the validators and links of an unchanged page only when they changed", () => {
    const plan = planKnowledge(
      result([
        text("/", "unchanged"),
        text("/menu", "unchanged", { etag: '"menu-2"', links: [`${ORIGIN}/hours`] }),
      ]),
      [stored("/"), stored("/menu")],
      CRAWL,
    );
    expect(plan.put).to.deep.equal([]);
    expect(plan.touch).to.deep.equal([
      {
        urlHash: urlHash(`${ORIGIN}/menu`),
        touch: {
          etag: '"menu-2"',
          last_modified: null,
          title: "Page",
          description: null,
          section_ids: "[]",
          links: JSON.stringify([`${ORIGIN}/hours`]),
        },
      },
    ]);
  });

  it("lists a page read without main text among the failures, once", () => {
    const empty = text("/photos", "new", {
      content: { language: null, sectionCount: 0, passages: [] },
    });
    const plan = planKnowledge(result([empty]), [], CRAWL);
    expect(plan.put).to.have.length(1);
    expect(plan.failures).to.deep.equal([{ url: `${ORIGIN}/photos`, reason: NO_TEXT }]);
    const again = planKnowledge(
      result([text("/photos", "unchanged")]),
      [stored("/photos", "hash-/photos", { passage_count: 0, etag: '"/photos"' })],
      CRAWL,
    );
    expect(again.failures).to.deep.equal([{ url: `${ORIGIN}/photos`, reason: NO_TEXT }]);
  });

  it("gives the crawler each stored page's validators, outline and links by URL", () => {
    const known = knownPages([
      stored("/menu", "h", {
        last_modified: "Sat, 21 Nov 2026 10:00:00 GMT",
        section_ids: JSON.stringify(["starters"]),
        links: JSON.stringify([`${ORIGIN}/`]),
      }),
    ]);
    expect(known.get(`${ORIGIN}/menu`)).to.deep.equal({
      etag: '"/menu"',
      lastModified: "Sat, 21 Nov 2026 10:00:00 GMT",
      contentHash: "h",
      page: { url: `${ORIGIN}/menu`, title: "Page", description: null, sectionIds: ["starters"] },
      links: [`${ORIGIN}/`],
    });
  });
});
