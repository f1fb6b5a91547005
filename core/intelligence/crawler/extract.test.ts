import { expect } from "chai";
import { extractPage } from "./extract.ts";

const HTML = `<html><head><title> Menu
  &amp; prices </title><base href="/shop/"><meta property="og:description" content="Mains."></head>
<body><h1 id="menu">Menu</h1><h2><a id="starters" href="#starters">Starters</a></h2>
<a href="cakes">Cakes</a> <a href="https://elsewhere.example/">Away</a> <a href="http://[bad">x</a>
</body></html>`;

describe("extractPage", () => {
  it("reads the title, the description, the section ids and the links against <base>", () => {
    expect(extractPage(HTML, "https://shop.example/menu")).to.deep.equal({
      title: "Menu & prices",
      description: "Mains.",
      sectionIds: ["menu", "starters"],
      links: [
        "https://shop.example/shop/#starters",
        "https://shop.example/shop/cakes",
        "https://elsewhere.example/",
      ],
      robots: [],
    });
  });

  it("leaves the links out when not asked for them (a crawl by sitemap)", () => {
    const page = extractPage(HTML, "https://shop.example/menu", { links: false });
    expect(page.links).to.deep.equal([]);
    expect(page.sectionIds).to.deep.equal(["menu", "starters"]);
  });
});

describe("extractPage: robots metas", () => {
  const html = `<head><meta name="Robots" content="noindex"><meta name="googlebot" content="none">
<meta name="sitevoicebot" content="nofollow"><meta name="robots"></head>`;

  it("reads the content of each robots meta, whatever its name's case", () => {
    expect(extractPage(html, "https://shop.example/").robots).to.deep.equal(["noindex"]);
  });

  it("reads those of the names asked for, and not another crawler's", () => {
    const names = ["robots", "sitevoicebot"];
    expect(
      extractPage(html, "https://shop.example/", { links: true, robotsNames: names }).robots,
    ).to.deep.equal(["noindex", "nofollow"]);
  });
});

describe("extractPage on a page nested 100,000 deep", () => {
  it("reads it whole: the deepest heading's id, the links after it, the title", () => {
    const n = 100_000;
    const html = `<html><head><title>Deep</title></head><body>${"<div>".repeat(n)}<h2 id="bottom">Bottom</h2>${"</div>".repeat(n)}<a href="/after">After</a></body></html>`;
    expect(extractPage(html, "https://shop.example/")).to.deep.equal({
      title: "Deep",
      description: null,
      sectionIds: ["bottom"],
      links: ["https://shop.example/after"],
      robots: [],
    });
  });
});
