/**
 * The crawler against a real site (test/helpers/crawl-site-server.ts) through the real guarded
 * request, under a production policy that allows only the fixture's own address: what it reads
 * from sitemaps (an index, a gzipped sitemap) or, without them, from the links of `/`; what
 * robots.txt and the page patterns keep it from; and its caps.
 */
import { expect } from "chai";
import { pluginNetwork, type PluginNetwork } from "../core/host/plugin-network.ts";
import { crawlSite } from "../core/intelligence/crawler/index.ts";
import type { CrawlOptions } from "../core/intelligence/crawler/index.ts";
import { parseOutboundAllowList } from "../core/security/outbound-allow-list.ts";
import { OutboundPolicy } from "../core/security/outbound-policy.ts";
import { startSiteServer, type SiteServer } from "./helpers/crawl-site-server.ts";

const UA = "SitevoiceBot/1.0 (+https://sitevoice.example/bot)";

describe("crawler: a site from its sitemaps or its links", function () {
  let site: SiteServer;
  let network: PluginNetwork;

  afterEach(async () => {
    await network?.close?.();
    await site?.close();
  });

  async function crawl(
    serverOptions: Parameters<typeof startSiteServer>[0] = {},
    options: Partial<CrawlOptions> = {},
    patterns: { enabled_pages?: string[]; disabled_pages?: string[] } = {},
  ) {
    site = await startSiteServer(serverOptions);
    const policy = new OutboundPolicy({
      allowPrivateNetworks: false,
      allow: parseOutboundAllowList(`127.0.0.1:${site.port}`),
    });
    network = pluginNetwork(policy);
    const result = await crawlSite(
      { domain: site.domain, ...patterns },
      { request: network.request, userAgent: UA, ...options },
    );
    expect(result.origin).to.equal(site.origin);
    expect(result.fetched).to.equal(site.requested.length);
    expect(result.finishedAt).to.be.at.least(result.startedAt);
    expect(new Set(site.userAgents)).to.deep.equal(new Set([UA]));
    return result;
  }

  const o = () => site.origin;
  const home = () => ({
    url: `${o()}/`,
    title: "Luigi's Trattoria",
    description: "Fresh pasta in the old town.",
    sectionIds: ["welcome"],
  });
  const about = () => ({
    url: `${o()}/about`,
    title: "About us",
    description: "Three generations of cooks.",
    sectionIds: ["story"],
  });
  const menu = () => ({
    url: `${o()}/menu`,
    title: "Menu & prices",
    description: "Starters, mains and desserts.",
    sectionIds: ["menu", "starters", "mains", "desserts", "sweet"],
  });
  const events = () => ({
    url: `${o()}/events`,
    title: "Events",
    description: "Live music on Fridays.",
    sectionIds: ["events"],
  });
  const team = () => ({ url: `${o()}/team`, title: "The team", description: null, sectionIds: [] });
  const errors = () => [
    { url: `${o()}/loop-a`, reason: `redirect loop at ${o()}/loop-a` },
    { url: `${o()}/missing`, reason: "HTTP 404" },
    { url: `${o()}/brochure.pdf`, reason: "not HTML (application/pdf)" },
  ];
  const pagePaths = ["/", "/about", "/menu", "/loop-a", "/loop-b", "/missing", "/brochure.pdf"];

  it("reads the pages a gzipped sitemap behind an index lists, never a disallowed one", async () => {
    const result = await crawl();
    expect(result.pages).to.deep.equal([home(), about(), menu(), events(), team()]);
    expect(result.errors).to.deep.equal(errors());
    expect([...site.requested].sort()).to.deep.equal(
      [
        "/robots.txt",
        "/sitemap-index.xml",
        "/sitemaps/pages.xml.gz",
        ...pagePaths,
        "/events",
        "/team",
      ].sort(),
    );
    expect(site.requested.slice(0, 3)).to.deep.equal([
      "/robots.txt",
      "/sitemap-index.xml",
      "/sitemaps/pages.xml.gz",
    ]);
  });

  it("without sitemaps finds the same pages by following the links of /", async () => {
    const result = await crawl({ sitemaps: false });
    expect(result.pages).to.deep.equal([home(), about(), menu(), events(), team()]);
    expect(result.errors).to.deep.equal(errors());
    // Tracking parameters and fragments are dropped before asking.
    expect([...site.requested].sort()).to.deep.equal(
      ["/robots.txt", "/sitemap-index.xml", ...pagePaths, "/events", "/team"].sort(),
    );
    expect(site.requested).not.to.include("/private/staff");
  });

  it("stops at maxPages, from a sitemap and from links", async () => {
    const listed = await crawl({}, { maxPages: 2 });
    expect(listed.pages).to.deep.equal([home(), about()]);
    expect(listed.errors).to.deep.equal([]);
    await network.close?.();
    await site.close();
    const linked = await crawl({ sitemaps: false }, { maxPages: 3 });
    expect(linked.pages).to.deep.equal([home(), about(), menu()]);
    expect(linked.fetched).to.equal(5);
  });

  it("counts only the pages it may read against maxPages, by links as by sitemap", async () => {
    const rules = ["Disallow: /about", "Disallow: /loop-a", "Disallow: /missing", "Disallow: /b"];
    const listed = await crawl({ robotsRules: rules }, { maxPages: 3 });
    expect(listed.pages).to.deep.equal([home(), menu(), events()]);
    await network.close?.();
    await site.close();
    const linked = await crawl({ sitemaps: false, robotsRules: rules }, { maxPages: 3 });
    expect(linked.pages).to.deep.equal([home(), menu(), events()]);
    expect(site.requested).not.to.include("/about");
  });

  it("follows links at most maxDepth deep", async () => {
    const one = await crawl({ sitemaps: false }, { maxDepth: 1 });
    expect(one.pages).to.deep.equal([home(), about(), menu(), events()]);
    expect(site.requested).not.to.include("/team");
    await network.close?.();
    await site.close();
    const zero = await crawl({ sitemaps: false }, { maxDepth: 0 });
    expect(zero.pages).to.deep.equal([home()]);
    expect(zero.fetched).to.equal(3);
  });

  it("waits the Crawl-delay between requests", async () => {
    const delays: number[] = [];
    const sleep = async (ms: number) => void delays.push(ms);
    const result = await crawl({ robotsRules: ["Crawl-delay: 2"] }, { maxPages: 2, sleep });
    expect(result.pages).to.deep.equal([home(), about()]);
    expect(result.fetched).to.equal(5);
    expect(delays).to.deep.equal([2000, 2000, 2000, 2000]);
  });

  it("keeps to the site's enabled pages and out of its disabled ones", async () => {
    const result = await crawl(
      {},
      {},
      { enabled_pages: ["/", "/menu", "/ev*", "/team"], disabled_pages: ["/team"] },
    );
    expect(result.pages).to.deep.equal([home(), menu(), events()]);
    expect(result.errors).to.deep.equal([]);
    expect([...site.requested].sort()).to.deep.equal(
      [
        "/robots.txt",
        "/sitemap-index.xml",
        "/sitemaps/pages.xml.gz",
        "/",
        "/menu",
        "/events",
      ].sort(),
    );
  });
});
