/**
 * The crawler cannot be pointed elsewhere: sitemap entries of another origin are skipped before
 * any request, a redirect off the site's origin is never followed (private, metadata, loopback
 * v6, another port of the same address), and the SSRF guard itself refuses a site whose name
 * resolves to a private address, or the fixture's address once the policy does not allow it.
 * Each refusal is an error of the crawl, logged at warn; none is a crash, and the other servers
 * hear nothing.
 */
import { expect } from "chai";
import { pino } from "pino";
import { pluginNetwork, type PluginNetwork } from "../core/host/plugin-network.ts";
import { crawlSite } from "../core/intelligence/crawler/index.ts";
import { parseOutboundAllowList } from "../core/security/outbound-allow-list.ts";
import { OutboundPolicy } from "../core/security/outbound-policy.ts";
import { startSiteServer, type SiteServer } from "./helpers/crawl-site-server.ts";

const UA = "SitevoiceBot/1.0";

describe("crawler: the SSRF guard and the origin rule", function () {
  let site: SiteServer;
  let other: SiteServer;
  let loopback6: SiteServer;
  let network: PluginNetwork | undefined;
  let logs: { level: number; msg: string; url?: string; loc?: string; reason?: string }[];

  beforeEach(async () => {
    other = await startSiteServer();
    loopback6 = await startSiteServer({}, "::1");
    logs = [];
  });
  afterEach(async () => {
    await network?.close?.();
    network = undefined;
    await Promise.all([site?.close(), other.close(), loopback6.close()]);
  });

  const logger = () =>
    pino({ level: "info" }, { write: (line: string) => void logs.push(JSON.parse(line)) });

  it("skips other origins in sitemaps and follows no redirect off the site", async () => {
    const targets = {
      "/go/private": "http://10.0.0.1/",
      "/go/metadata": "http://169.254.169.254/latest/meta-data/",
      "/go/v6": `${loopback6.origin}/`,
      "/go/other-port": `${other.origin}/`,
    };
    site = await startSiteServer({
      redirects: targets,
      extraLocs: [
        `${other.origin}/from-sitemap`,
        "http://10.0.0.1/from-sitemap",
        `${loopback6.origin}/from-sitemap`,
        ...Object.keys(targets).map((p) => `{origin}${p}`),
      ],
    });
    const policy = new OutboundPolicy({
      allowPrivateNetworks: false,
      allow: parseOutboundAllowList(`127.0.0.1:${site.port}`),
    });
    network = pluginNetwork(policy);
    const result = await crawlSite(
      { domain: site.domain },
      { request: network.request, userAgent: UA, logger: logger() },
    );

    expect(result.pages.map((p) => p.url)).to.deep.equal(
      ["/", "/about", "/menu", "/events", "/team"].map((p) => `${site.origin}${p}`),
    );
    const refused = Object.entries(targets).map(([path, target]) => ({
      url: `${site.origin}${path}`,
      reason: `redirected off the site to ${target}; not followed`,
    }));
    expect(result.errors.slice(3)).to.deep.equal(refused);
    expect(result.errors).to.have.length(7);
    for (const path of Object.keys(targets)) expect(site.requested).to.include(path);
    expect(other.requested).to.deep.equal([]);
    expect(loopback6.requested).to.deep.equal([]);

    const warnings = logs.filter((l) => l.level === 40);
    expect(warnings.map((l) => l.loc ?? l.url)).to.deep.equal([
      `${other.origin}/from-sitemap`,
      "http://10.0.0.1/from-sitemap",
      `${loopback6.origin}/from-sitemap`,
      ...refused.map((e) => e.url),
    ]);
    expect(warnings.slice(3).map((l) => l.reason)).to.deep.equal(refused.map((e) => e.reason));
  });

  it("is refused by the guard when the site's name resolves to a private address", async () => {
    const policy = new OutboundPolicy({
      allowPrivateNetworks: false,
      resolve: async () => [{ address: "10.0.0.1", family: 4 }],
    });
    network = pluginNetwork(policy);
    const result = await crawlSite(
      { domain: "luigis.test" },
      { request: network.request, userAgent: UA, logger: logger() },
    );
    const reason =
      "outbound request to luigis.test refused: it resolves to a private address, and private " +
      "networks are not allowed (the operator can allow this host with SITEVOICE_OUTBOUND_ALLOW)";
    expect(result).to.deep.include({
      origin: "https://luigis.test",
      pages: [],
      errors: [{ url: "https://luigis.test/robots.txt", reason }],
      fetched: 1,
    });
    expect(logs.filter((l) => l.level === 40).map((l) => l.reason)).to.deep.equal([reason]);
  });

  it("is refused by the guard at the fixture's own address when the policy does not allow it", async () => {
    site = await startSiteServer();
    network = pluginNetwork(new OutboundPolicy({ allowPrivateNetworks: false }));
    const result = await crawlSite(
      { domain: site.domain },
      { request: network.request, userAgent: UA, logger: logger() },
    );
    expect(result.pages).to.deep.equal([]);
    expect(result.errors).to.have.length(1);
    expect(result.errors[0]!.reason).to.match(
      /^outbound request to 127\.0\.0\.1 refused: 127\.0\.0\.1 is a loopback address/,
    );
    expect(site.requested).to.deep.equal([]);
  });

  it("refuses a metadata address as the site's domain", async () => {
    network = pluginNetwork(new OutboundPolicy({ allowPrivateNetworks: true }));
    const result = await crawlSite(
      { domain: "169.254.169.254" },
      { request: network.request, userAgent: UA, logger: logger() },
    );
    expect(result.errors).to.deep.equal([
      {
        url: "https://169.254.169.254/robots.txt",
        reason:
          "outbound request to 169.254.169.254 refused: 169.254.169.254 is a cloud metadata address, which is never allowed",
      },
    ]);
  });
});
