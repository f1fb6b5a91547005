/**
 * The crawler keeps out of the site's knowledge and outline what a page asks search engines to
 * keep out: `noindex` in `<meta name="robots">`, in a meta named for the crawler's own product
 * token, or in an `X-Robots-Tag` header (unprefixed or prefixed with that token); another
 * crawler's rule is not its own. A `noindex` page's links are still followed unless it also says
 * `nofollow` (or `none`). Against the crawler's fixture site, through the real guarded request.
 */
import { expect } from "chai";
import { pluginNetwork, type PluginNetwork } from "../core/host/plugin-network.ts";
import { crawlSite } from "../core/intelligence/crawler/index.ts";
import { parseOutboundAllowList } from "../core/security/outbound-allow-list.ts";
import { OutboundPolicy } from "../core/security/outbound-policy.ts";
import {
  startSiteServer,
  type SiteServer,
  type SiteServerOptions,
} from "./helpers/crawl-site-server.ts";

const UA = "SitevoiceBot/1.0 (+https://sitevoice.example/bot)";

describe("crawler: pages that ask not to be indexed", function () {
  let site: SiteServer;
  let network: PluginNetwork;

  afterEach(async () => {
    await network?.close?.();
    await site?.close();
  });

  /** The paths of the pages a crawl kept, and of those whose text it kept, sorted. */
  async function kept(options: SiteServerOptions) {
    site = await startSiteServer(options);
    network = pluginNetwork(
      new OutboundPolicy({
        allowPrivateNetworks: false,
        allow: parseOutboundAllowList(`127.0.0.1:${site.port}`),
      }),
    );
    const result = await crawlSite(
      { domain: site.domain },
      { request: network.request, userAgent: UA },
    );
    const paths = (urls: string[]) => urls.map((url) => new URL(url).pathname).sort();
    const pages = paths(result.pages.map((page) => page.url));
    expect(paths(result.texts.map((text) => text.url))).to.deep.equal(pages);
    return pages;
  }

  const meta = (name: string, content: string) => `<meta name="${name}" content="${content}">`;
  /** What the fixture's sitemap gives when every page may be indexed. */
  const ALL = ["/", "/about", "/events", "/menu", "/team"];

  it("keeps every page when none says noindex", async () => {
    expect(await kept({})).to.deep.equal(ALL);
  });

  for (const [what, edit] of [
    ["a robots meta", { head: meta("robots", "noindex") }],
    [
      "a robots meta in capitals, among other rules",
      { head: meta("ROBOTS", "max-snippet:50, NOINDEX") },
    ],
    ["a meta named for the crawler", { head: meta("sitevoicebot", "noindex") }],
    ["a robots meta of none", { head: meta("robots", "none") }],
    ["an X-Robots-Tag header", { headers: { "x-robots-tag": "noindex" } }],
    [
      "an X-Robots-Tag header for the crawler",
      { headers: { "x-robots-tag": "SitevoiceBot: noindex" } },
    ],
  ] as const) {
    it(`leaves out a page that says noindex in ${what}`, async () => {
      expect(await kept({ pageEdits: { "/menu": edit } })).to.deep.equal(
        ALL.filter((path) => path !== "/menu"),
      );
    });
  }

  for (const [what, edit] of [
    ["a meta for another crawler", { head: meta("googlebot", "noindex") }],
    [
      "an X-Robots-Tag header for another crawler",
      { headers: { "x-robots-tag": "googlebot: noindex" } },
    ],
    ["a robots meta of index, nofollow", { head: meta("robots", "index, nofollow") }],
    [
      "an X-Robots-Tag of unavailable_after alone",
      { headers: { "x-robots-tag": "unavailable_after: 2030-01-01" } },
    ],
  ] as const) {
    it(`keeps a page whose only rule is ${what}`, async () => {
      expect(await kept({ pageEdits: { "/menu": edit } })).to.deep.equal(ALL);
    });
  }

  it("follows the links of a noindex page found by links", async () => {
    const pages = await kept({
      sitemaps: false,
      pageEdits: { "/about": { head: meta("robots", "noindex") } },
    });
    expect(pages).to.include("/team").and.not.include("/about");
  });

  it("follows no link of a page that says nofollow, and keeps the page", async () => {
    const pages = await kept({
      sitemaps: false,
      pageEdits: { "/about": { head: meta("robots", "nofollow") } },
    });
    expect(pages).to.include("/about").and.not.include("/team");
  });

  it("neither keeps nor follows a page that says none", async () => {
    const pages = await kept({
      sitemaps: false,
      pageEdits: { "/about": { head: meta("robots", "none") } },
    });
    expect(pages).to.not.include("/about").and.not.include("/team");
  });
});
