/**
 * GET /v1/:siteId/site-intelligence over real HTTP against the real service: the Origin check and
 * CORS of the widget endpoints, 503 crawler_unavailable before the first crawl finished (a crawl
 * queued when there was none), the pages of the latest done crawl exactly, each collection
 * introspected through the REST adapter against a real DRF-style backend (a failing one marked,
 * the others fine, nothing the collection does not allow), and the limit of 120 a minute.
 * Crawl rows are written through the store's crawl repository, as the crawl runner leaves them.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { CrawledPage } from "../core/intelligence/crawler/crawl-types.ts";
import { startDrfServer, type DrfServer } from "./helpers/drf-server.ts";
import { finishedCrawl, forgetCrawls, queuedCrawl } from "./helpers/crawl-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const DOMAIN = "nordichome.example";
const ORIGIN = `https://${DOMAIN}`;

const PAGES: CrawledPage[] = [
  { url: `${ORIGIN}/`, title: "Nordic Home", description: "Furniture", sectionIds: ["hero"] },
  {
    url: `${ORIGIN}/sofas`,
    title: "Sofas",
    description: "Three-seat and two-seat sofas",
    sectionIds: ["oslo", "bergen"],
  },
  { url: `${ORIGIN}/contact`, title: null, description: null, sectionIds: [] },
];

/** Fields the collections below allow: name (searchable), price and in_stock. */
const FIELDS = {
  searchable_fields: ["name"],
  filterable_fields: ["price", "in_stock"],
  display_fields: ["name", "price"],
};
/** Fields every DRF record has that no collection allows. */
const NOT_ALLOWED = ["id", "description", "category", "color", "released_on"];

describe("GET /v1/:siteId/site-intelligence", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let backend: DrfServer;
  let service: TestService;
  let site: string;

  /** The GET as a browser on `origin` sends it; null sends no Origin. */
  const read = (siteId: string, origin: string | null = ORIGIN) => {
    const call = request(service.server).get(`/v1/${siteId}/site-intelligence`);
    return origin === null ? call : call.set("Origin", origin);
  };

  /** A new site on the DRF backend, in a workspace of its own. */
  async function newSite(options: { adapter?: boolean } = {}): Promise<string> {
    const workspaceId = await service.workspace();
    const siteId = `intel-${crypto.randomBytes(4).toString("hex")}`;
    const adapter = {
      type: "rest",
      config: { baseUrl: `${backend.origin}/api`, queryMode: "querystring" },
      collections: {
        products: { source: "/products/", description: "What the shop sells", ...FIELDS },
        broken: { source: "/status/500/", ...FIELDS },
      },
    };
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: siteId,
      business_name: "Nordic Home",
      business_description: "Scandinavian furniture",
      domain: DOMAIN,
      ...(options.adapter === false ? {} : { adapter }),
    });
    return siteId;
  }

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    backend = await startDrfServer();
    service = await startTestService(database.url, {
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      // Crawl rows are the tests' own (crawl-rows.ts): no job runs a crawl under them.
      SITEVOICE_JOBS: "off",
    });
  });
  beforeEach(async () => {
    site = await newSite();
  });
  after(async () => {
    await service?.stop();
    await backend?.close();
    await database?.drop();
  });

  it("is 404 site_not_found for an unknown site", async () => {
    const res = await read("no-such-site-here").expect(404);
    expect(res.body.error.code).to.equal("site_not_found");
  });

  for (const origin of [null, "https://evil.example", `http://${DOMAIN}`]) {
    it(`is 403 origin_not_allowed, without CORS, for Origin ${origin ?? "(none)"}`, async () => {
      await finishedCrawl(service.store, site, { domain: DOMAIN, pages: PAGES });
      const res = await read(site, origin).expect(403);
      expect(res.body.error.code).to.equal("origin_not_allowed");
      expect(res.headers["access-control-allow-origin"]).to.equal(undefined);
    });
  }

  it("is 503 crawler_unavailable with Retry-After 30 when the site never had a crawl, and queues one", async () => {
    await forgetCrawls(service.store, site);
    expect(await service.store.crawls.any(site)).to.equal(false);
    const res = await read(site).expect(503);
    expect(res.body.error.code).to.equal("crawler_unavailable");
    expect(res.headers["retry-after"]).to.equal("30");
    const queued = await service.store.crawls.active(site);
    expect(queued).to.include({ site_id: site, trigger: "created", status: "queued" });
    // Asked again: still 503, and the same one crawl.
    await read(site).expect(503);
    const crawls = await service.store.crawls.list(site, 10);
    expect(crawls.map((c) => c.id)).to.deep.equal([queued!.id]);
  });

  it("is 503 while the first crawl is queued, queueing no other", async () => {
    const crawl = await queuedCrawl(service.store, site);
    const res = await read(site).expect(503);
    expect(res.headers["retry-after"]).to.equal("30");
    expect((await service.store.crawls.list(site, 10)).map((c) => c.id)).to.deep.equal([crawl.id]);
  });

  it("answers the pages of the latest done crawl exactly, each collection's allowed fields, and the prompt", async () => {
    await finishedCrawl(service.store, site, {
      domain: DOMAIN,
      pages: [PAGES[0]!],
      at: Date.now() - 60_000,
    });
    await finishedCrawl(service.store, site, { domain: DOMAIN, pages: PAGES });
    const res = await read(site).expect(200);
    const data = res.body.data;
    expect(res.body.success).to.equal(true);
    expect(Object.keys(data).sort()).to.deep.equal([
      "data",
      "generatedAt",
      "personality_prompt",
      "site",
    ]);
    expect(new Date(data.generatedAt).toISOString()).to.equal(data.generatedAt);
    // No crawl here stored any text: no sections, no index.
    expect(data.site).to.deep.equal({
      origin: ORIGIN,
      totalPages: 3,
      pages: PAGES.map((page) => ({ ...page, sections: 0 })),
      knowledge: { updatedAt: null },
    });
    const first = PAGES[0]!;
    expect(data.data.collections).to.deep.equal([
      {
        name: "products",
        source: "/products/",
        description: "What the shop sells",
        recordCount: 12,
        fields: [
          { name: "name", type: "string", sample: "Oslo Sofa" },
          { name: "price", type: "number", sample: 799 },
          // Filterable but never returned by a search: its type, not a value.
          { name: "in_stock", type: "boolean" },
        ],
      },
      { name: "broken", source: "/status/500/", fields: [], error: "introspection failed" },
    ]);
    expect(data.personality_prompt).to.include("\n## Pages\n");
    expect(data.personality_prompt).to.include(`- ${first!.title} (/): ${first!.description}`);
    expect(data.personality_prompt).to.include("- Sofas (/sofas): Three-seat and two-seat sofas");
  });

  it("never shows a field the collection does not allow, nor the backend's address", async () => {
    await finishedCrawl(service.store, site, { domain: DOMAIN, pages: PAGES });
    const res = await read(site).expect(200);
    const names = res.body.data.data.collections.flatMap((c: { fields: { name: string }[] }) =>
      c.fields.map((f) => f.name),
    );
    expect(names.filter((name: string) => NOT_ALLOWED.includes(name))).to.deep.equal([]);
    const text = JSON.stringify(res.body.data.data);
    for (const value of ["Blue wool", 'sofas"', "2023-02-01", String(backend.port), "127.0.0.1"]) {
      expect(text, value).to.not.include(value);
    }
  });

  it("answers without pages when every crawl failed, and without data for a site without an adapter", async () => {
    await finishedCrawl(service.store, site, { domain: DOMAIN, status: "failed" });
    const failed = (await read(site).expect(200)).body.data;
    expect(failed).to.not.have.property("site");
    expect(failed.data.collections.map((c: { name: string }) => c.name)).to.deep.equal([
      "products",
      "broken",
    ]);
    expect(failed.personality_prompt).to.include("Nordic Home").and.not.include("## Pages");
    expect((await service.store.crawls.active(site)) ?? null).to.equal(null);

    const bare = await newSite({ adapter: false });
    await finishedCrawl(service.store, bare, { domain: DOMAIN, pages: PAGES });
    const noAdapter = (await read(bare).expect(200)).body.data;
    expect(noAdapter).to.not.have.property("data");
    expect(noAdapter.site.pages).to.deep.equal(PAGES.map((page) => ({ ...page, sections: 0 })));
  });

  it("echoes the Origin with Vary: Origin, and answers a GET preflight from the site's origin only", async () => {
    await finishedCrawl(service.store, site, { domain: DOMAIN, pages: PAGES });
    const res = await read(site).expect(200);
    expect(res.headers["access-control-allow-origin"]).to.equal(ORIGIN);
    expect(res.headers.vary).to.match(/\bOrigin\b/);
    const preflight = await request(service.server)
      .options(`/v1/${site}/site-intelligence`)
      .set("Origin", ORIGIN)
      .set("Access-Control-Request-Method", "GET")
      .expect(204);
    expect(preflight.headers["access-control-allow-origin"]).to.equal(ORIGIN);
    expect(preflight.headers["access-control-allow-methods"]).to.equal("GET");
    await request(service.server)
      .options(`/v1/${site}/site-intelligence`)
      .set("Origin", "https://evil.example")
      .set("Access-Control-Request-Method", "GET")
      .expect(403);
  });

  it("is 405 for a POST, naming GET", async () => {
    const res = await request(service.server)
      .post(`/v1/${site}/site-intelligence`)
      .set("Origin", ORIGIN)
      .expect(405);
    expect(res.headers.allow).to.include("GET");
  });

  it("answers 120 requests a minute per site, then 429 rate_limited with Retry-After", async () => {
    await finishedCrawl(service.store, site, { domain: DOMAIN, pages: PAGES });
    for (let i = 0; i < 120; i++) {
      const res = await read(site);
      expect(res.status, `request ${i + 1}`).to.equal(200);
      expect(res.headers["ratelimit-limit"]).to.equal("120");
    }
    const refused = await read(site).expect(429);
    expect(refused.body.error.code).to.equal("rate_limited");
    expect(Number(refused.headers["retry-after"])).to.be.within(1, 60);
    // Another site has its own budget.
    const other = await newSite();
    await finishedCrawl(service.store, other, { domain: DOMAIN, pages: PAGES });
    await read(other).expect(200);
  });
});
