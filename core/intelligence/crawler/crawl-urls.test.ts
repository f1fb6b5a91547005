/** The crawler's URL rules, the page patterns and the sitemap reader, without a network. */
import { expect } from "chai";
import { pagePatternTest } from "../../sites/page-patterns.ts";
import { pageUrl, siteOrigin } from "./crawl-urls.ts";
import { extractSitemap } from "./extract.ts";

describe("crawler URLs", () => {
  it("crawls https, plain http only for a local domain", () => {
    expect(siteOrigin("Shop.Example")).to.equal("https://shop.example");
    expect(siteOrigin("shop.example:8443")).to.equal("https://shop.example:8443");
    expect(siteOrigin("localhost:3000")).to.equal("http://localhost:3000");
    expect(siteOrigin("127.0.0.1")).to.equal("http://127.0.0.1");
    expect(() => siteOrigin("shop.example/path")).to.throw(TypeError);
  });

  it("keeps same-origin pages, without fragments or tracking parameters", () => {
    const o = "https://shop.example";
    const at = (href: string) => pageUrl(href, `${o}/a/b`, o);
    expect(at("c?utm_source=x&page=2&gclid=1&fbclid=2&msclkid=3&mc_cid=4&mc_eid=5#top")).to.equal(
      `${o}/a/c?page=2`,
    );
    expect(at("/x?UTM_Campaign=y")).to.equal(`${o}/x`);
    expect(at("/x?b=2&a=1&ref=home")).to.equal(`${o}/x?b=2&a=1&ref=home`);
    expect(at("/x?")).to.equal(`${o}/x`);
    expect(at("http://shop.example/x")).to.equal(undefined);
    expect(at("https://www.shop.example/x")).to.equal(undefined);
    expect(at("mailto:a@shop.example")).to.equal(undefined);
    expect(at("https://shop.example:443/x")).to.equal(`${o}/x`);
  });

  it("matches page patterns on the whole path, * across slashes", () => {
    const test = pagePatternTest({
      enabled_pages: ["/", "/blog/*"],
      disabled_pages: ["/blog/*/draft"],
    });
    expect(["/", "/blog/", "/blog/a/b", "/blog/a/draft", "/about"].map(test)).to.deep.equal([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(pagePatternTest({})("/anything")).to.equal(true);
    expect(pagePatternTest({ enabled_pages: [] })("/")).to.equal(false);
    expect(pagePatternTest({ enabled_pages: ["/a.b"] })("/aXb")).to.equal(false);
  });

  it("reads sitemap locs, not an extension's", () => {
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
      xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
      <url><loc> https://s.example/a?x=1&amp;y=2 </loc>
        <image:image><image:loc>https://s.example/i.png</image:loc></image:image></url>
      <url><loc>https://s.example/b</loc></url></urlset>`;
    expect(extractSitemap(xml)).to.deep.equal({
      kind: "urlset",
      locs: ["https://s.example/a?x=1&y=2", "https://s.example/b"],
    });
    expect(
      extractSitemap(
        "<sitemapindex><sitemap><loc>https://s.example/s.xml</loc></sitemap></sitemapindex>",
      ),
    ).to.deep.equal({ kind: "index", locs: ["https://s.example/s.xml"] });
    expect(extractSitemap("<html><body>not xml</body></html>").kind).to.equal("other");
  });
});
