/**
 * A site page's crawl list, as htmx loads it into the page: beside a crawl's count of errors, each
 * error's URL and reason (HTML-escaped: both come from the site crawled), the first ten of them
 * and how many more. The crawls are written through the store as the runner leaves them, on a
 * service that runs no jobs, so that no real crawl runs beside them.
 */
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { CrawlError } from "../core/intelligence/crawler/crawl-types.ts";
import { finishedCrawl, forgetCrawls } from "./helpers/crawl-rows.ts";
import { signUp, type Member } from "./helpers/session-cookie.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const DOMAIN = "crawl-errors.example";

describe("the site page's crawl list", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let member: Member;
  const siteId = "crawl-errors";

  /** Leaves the site one crawl, failed with `errors`. */
  async function failedWith(errors: CrawlError[]): Promise<void> {
    await forgetCrawls(service.store, siteId);
    await finishedCrawl(service.store, siteId, { domain: DOMAIN, status: "failed", errors });
  }

  /** The crawl list the site page loads (hx-get), as HTML. */
  async function crawlList(): Promise<string> {
    const res = await request(service.server)
      .get(`/dashboard/sites/${siteId}/crawls?workspace_id=${member.workspaceId}`)
      .set({ Cookie: member.cookie, "HX-Request": "true" })
      .expect(200);
    return res.text;
  }

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      SITEVOICE_JOBS: "off",
    });
    member = await signUp(service);
    await service.sites.create(operatorPrincipal(member.workspaceId, "test"), {
      site_id: siteId,
      business_name: "Crawl Errors",
      business_description: "",
      domain: DOMAIN,
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("shows each error's URL and reason under the crawl", async () => {
    await failedWith([
      { url: `https://${DOMAIN}/robots.txt`, reason: "HTTP 503" },
      { url: `https://${DOMAIN}/sitemap.xml`, reason: "timed out after 10 s" },
    ]);
    const html = await crawlList();
    expect(html).to.contain("2 errors");
    expect(html).to.contain(`https://${DOMAIN}/robots.txt`).and.contain("HTTP 503");
    expect(html).to.contain(`https://${DOMAIN}/sitemap.xml`).and.contain("timed out after 10 s");
  });

  it("shows what a done crawl found of its pages' text: fetched, unchanged, changed, removed", async () => {
    await forgetCrawls(service.store, siteId);
    await finishedCrawl(service.store, siteId, {
      domain: DOMAIN,
      pages: [{ url: `https://${DOMAIN}/`, title: null, description: null, sectionIds: [] }],
      counts: { pages_fetched: 12, pages_unchanged: 9, pages_changed: 2, pages_removed: 1 },
    });
    const html = await crawlList();
    expect(html).to.contain("12 fetched · 9 unchanged · 2 changed · 1 removed");
  });

  it("escapes a reason and a URL that hold HTML", async () => {
    await failedWith([
      { url: `https://${DOMAIN}/"><b>x</b>`, reason: "<img src=x onerror=alert(1)>" },
    ]);
    const html = await crawlList();
    expect(html).to.contain("&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;");
    expect(html).to.contain(`https://${DOMAIN}/&quot;&gt;&lt;b&gt;x&lt;/b&gt;`);
    expect(html).not.to.contain("<img").and.not.to.contain("<b>x");
  });

  it("shows the first ten of many errors and how many more there are", async () => {
    const errors = Array.from({ length: 25 }, (_, i) => ({
      url: `https://${DOMAIN}/page-${i + 1}`,
      reason: "HTTP 404",
    }));
    await failedWith(errors);
    const html = await crawlList();
    expect(html).to.contain(`https://${DOMAIN}/page-10<`);
    expect(html).not.to.contain(`https://${DOMAIN}/page-11<`);
    expect(html).to.contain("and 15 more");
  });
});
