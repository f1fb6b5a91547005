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
    });
  });

  it("leaves the links out when not asked for them (a crawl by sitemap)", () => {
    const page = extractPage(HTML, "https://shop.example/menu", { links: false });
    expect(page.links).to.deep.equal([]);
    expect(page.sectionIds).to.deep.equal(["menu", "starters"]);
  });
});
