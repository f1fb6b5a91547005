import { expect } from "chai";
import {
  KNOWLEDGE_SITE_PAGES,
  startKnowledgeSite,
  type KnowledgeSite,
} from "./helpers/knowledge-site-server.ts";

const get = (site: KnowledgeSite, path: string, headers: Record<string, string> = {}) =>
  fetch(`${site.origin}${path}`, { headers });

/** The paths a sitemap's `<loc>`s name, the origin taken off. */
const sitemapPaths = async (site: KnowledgeSite) =>
  [...(await (await get(site, "/sitemap.xml")).text()).matchAll(/<loc>([^<]*)<\/loc>/g)].map(
    (match) => match[1]!.slice(site.origin.length),
  );

describe("the knowledge fixture site", () => {
  let site: KnowledgeSite;
  afterEach(async () => site?.close());

  it("serves every page of its sitemap as HTML with a strong ETag and a Last-Modified", async () => {
    site = await startKnowledgeSite();
    expect(await sitemapPaths(site)).to.deep.equal(KNOWLEDGE_SITE_PAGES);
    const response = await get(site, "/opening-hours");
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.equal("text/html; charset=utf-8");
    expect(response.headers.get("etag")).to.match(/^"[\w-]{10,}"$/);
    expect(response.headers.get("last-modified")).to.equal("Mon, 03 Mar 2025 09:00:00 GMT");
    expect(await response.text()).to.include('<h1 id="opening-hours">Opening hours</h1>');
  });

  it("serves robots.txt keeping crawlers out of /staff/ and naming the sitemap at its origin", async () => {
    site = await startKnowledgeSite();
    const robots = await (await get(site, "/robots.txt")).text();
    expect(robots).to.include("Disallow: /staff/\n");
    expect(robots).to.include(`Sitemap: ${site.origin}/sitemap.xml\n`);
  });

  it("answers 404 for a path it has no page for", async () => {
    site = await startKnowledgeSite();
    expect((await get(site, "/imprint")).status).to.equal(404);
  });

  it("answers 304 to If-None-Match naming the page's ETag, weak or among others", async () => {
    site = await startKnowledgeSite();
    const etag = (await get(site, "/faq")).headers.get("etag")!;
    const again = await get(site, "/faq", { "if-none-match": `"other", W/${etag}` });
    expect(again.status).to.equal(304);
    expect(again.headers.get("etag")).to.equal(etag);
    expect(await again.text()).to.equal("");
    expect((await get(site, "/faq", { "if-none-match": '"other"' })).status).to.equal(200);
  });

  it("answers 304 to If-Modified-Since at or after the page's Last-Modified, 200 before", async () => {
    site = await startKnowledgeSite();
    const since = (await get(site, "/faq")).headers.get("last-modified")!;
    expect((await get(site, "/faq", { "if-modified-since": since })).status).to.equal(304);
    const before = new Date(Date.parse(since) - 1000).toUTCString();
    expect((await get(site, "/faq", { "if-modified-since": before })).status).to.equal(200);
  });

  it("ignores If-Modified-Since when If-None-Match is sent too", async () => {
    site = await startKnowledgeSite();
    const since = (await get(site, "/faq")).headers.get("last-modified")!;
    const response = await get(site, "/faq", {
      "if-none-match": '"stale"',
      "if-modified-since": since,
    });
    expect(response.status).to.equal(200);
  });

  it("serves a changed page with a new ETag and a later Last-Modified: the old ones no longer match", async () => {
    site = await startKnowledgeSite();
    const before = (await get(site, "/prices")).headers;
    site.setPage("/prices", "<html><body><main><p>New prices</p></main></body></html>");
    const after = await get(site, "/prices", {
      "if-none-match": before.get("etag")!,
    });
    expect(after.status).to.equal(200);
    expect(await after.text()).to.include("New prices");
    expect(after.headers.get("etag")).to.not.equal(before.get("etag"));
    expect(Date.parse(after.headers.get("last-modified")!)).to.be.greaterThan(
      Date.parse(before.get("last-modified")!),
    );
    const since = before.get("last-modified")!;
    expect((await get(site, "/prices", { "if-modified-since": since })).status).to.equal(200);
  });

  it("adds a new page to its sitemap", async () => {
    site = await startKnowledgeSite();
    site.setPage("/blog/whitening-myths", "<p>Myths</p>");
    expect((await get(site, "/blog/whitening-myths")).status).to.equal(200);
    expect(await sitemapPaths(site)).to.deep.equal([
      ...KNOWLEDGE_SITE_PAGES,
      "/blog/whitening-myths",
    ]);
  });

  it("answers 404 for a removed page and leaves it out of the sitemap", async () => {
    site = await startKnowledgeSite();
    site.removePage("/team");
    expect((await get(site, "/team")).status).to.equal(404);
    expect(await sitemapPaths(site)).to.deep.equal(
      KNOWLEDGE_SITE_PAGES.filter((path) => path !== "/team"),
    );
  });

  it("sends no ETag and ignores If-None-Match when told not to use ETags", async () => {
    site = await startKnowledgeSite({ etag: false });
    const response = await get(site, "/faq", { "if-none-match": "*" });
    expect(response.status).to.equal(200);
    expect(response.headers.get("etag")).to.equal(null);
    const since = response.headers.get("last-modified")!;
    expect(
      (await get(site, "/faq", { "if-none-match": '"x"', "if-modified-since": since })).status,
    ).to.equal(304);
  });

  it("sends no Last-Modified and ignores If-Modified-Since when told not to", async () => {
    site = await startKnowledgeSite({ lastModified: false });
    const response = await get(site, "/faq", {
      "if-modified-since": "Fri, 01 Jan 2100 00:00:00 GMT",
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get("last-modified")).to.equal(null);
  });

  it("logs each request's method, path, validators, user agent and status", async () => {
    site = await startKnowledgeSite();
    await get(site, "/faq", { "user-agent": "Sitevoice-Crawler/1.0", "if-none-match": '"x"' });
    await fetch(`${site.origin}/faq`, {
      method: "HEAD",
      headers: { "if-modified-since": "Fri, 01 Jan 2100 00:00:00 GMT" },
    });
    await get(site, "/nowhere");
    expect(site.requestsFor("/faq")).to.deep.equal([
      {
        method: "GET",
        path: "/faq",
        ifNoneMatch: '"x"',
        userAgent: "Sitevoice-Crawler/1.0",
        status: 200,
      },
      {
        method: "HEAD",
        path: "/faq",
        ifModifiedSince: "Fri, 01 Jan 2100 00:00:00 GMT",
        userAgent: "node",
        status: 304,
      },
    ]);
    expect(site.log.map((entry) => entry.path)).to.deep.equal(["/faq", "/faq", "/nowhere"]);
    site.clearLog();
    expect(site.log).to.deep.equal([]);
  });
});
