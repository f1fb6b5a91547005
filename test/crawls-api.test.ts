/**
 * Crawls as the service runs them, on each of the three databases, against the crawler's real
 * fixture site (test/fixtures/crawl-site/ served by node:http, reachable through an outbound
 * allow-list entry): a site's creation queues its first crawl, a domain change another, a refresh
 * one (or answers the one under way); each is recorded with its status, pages, errors and
 * duration, and listed at `GET /v1/sites/:id/crawls`; one under way at a stop is given back.
 * Who may do what, and the bad inputs.
 *
 * The service runs with SITEVOICE_JOBS=off here, so each test runs the crawls it queued itself
 * (`crawls.run`, the job's work) and nothing runs under it; crawl-jobs.test.ts runs them as jobs.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { pino } from "pino";
import request from "supertest";
import type { Scope } from "../core/auth/principal.ts";
import { pluginNetwork } from "../core/host/plugin-network.ts";
import { CrawlService } from "../core/intelligence/crawl-service.ts";
import { CrawlKnowledge } from "../core/intelligence/knowledge/crawl-knowledge.ts";
import { parseOutboundAllowList } from "../core/security/outbound-allow-list.ts";
import { OutboundPolicy } from "../core/security/outbound-policy.ts";
import { startSiteServer, type SiteServer } from "./helpers/crawl-site-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const target of databaseTargets) {
  describe(`crawls API on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService;
    let fixture: SiteServer;
    let other: SiteServer;
    let workspace: string;
    let key: string;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      fixture = await startSiteServer({ sitemaps: true });
      other = await startSiteServer({ sitemaps: false });
      service = await startTestService(database.url, {
        SITEVOICE_JOBS: "off",
        SITEVOICE_OUTBOUND_ALLOW: `127.0.0.1:${fixture.port},127.0.0.1:${other.port}`,
        SITEVOICE_CRAWLER_CONTACT_URL: "https://voice.example/crawler",
      });
    });
    after(async () => {
      await service?.stop();
      await fixture?.close();
      await other?.close();
      await database?.drop();
    });
    beforeEach(async () => {
      workspace = await service.workspace();
      key = await service.key(workspace);
    });

    const api = (method: "get" | "post" | "patch", path: string, as = key) =>
      request(service.url)[method](path).set("Authorization", `Bearer ${as}`);

    async function createSite(domain = fixture.domain): Promise<string> {
      const created = await api("post", "/v1/sites").send({
        business_name: "Luigi's Trattoria",
        business_description: "Fresh pasta in the old town.",
        domain,
        industry: "restaurant",
        timezone: "Europe/Rome",
        language: "it",
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body.data.site_id as string;
    }

    async function crawlsOf(siteId: string, query = "") {
      const listed = await api("get", `/v1/sites/${siteId}/crawls${query}`);
      expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      return listed;
    }

    it("queues a site's first crawl with the site; run, it records the pages and errors", async () => {
      const siteId = await createSite();
      const [queued] = (await crawlsOf(siteId)).body.data;
      expect(queued).to.include({ trigger: "created", status: "queued", pages: 0 });
      expect(queued).to.include({ started_at: null, finished_at: null, duration_ms: null });
      expect(queued.created_at).to.match(ISO_TIME);

      fixture.requested.length = 0;
      const ran = await service.crawls.run(queued.id);
      expect(ran?.status).to.equal("done");
      const [done] = (await crawlsOf(siteId)).body.data;
      expect(done).to.include({ id: queued.id, trigger: "created", status: "done", pages: 5 });
      // 8 pages asked for (robots.txt keeps it from /private/staff), 5 of them read, all new.
      expect(done).to.include({
        pages_fetched: 8,
        pages_unchanged: 0,
        pages_changed: 5,
        pages_removed: 0,
      });
      expect(done.started_at).to.match(ISO_TIME);
      expect(done.finished_at).to.match(ISO_TIME);
      expect(done.duration_ms).to.equal(Date.parse(done.finished_at) - Date.parse(done.started_at));
      expect(done.errors).to.deep.equal([
        { url: `${fixture.origin}/loop-a`, reason: `redirect loop at ${fixture.origin}/loop-a` },
        { url: `${fixture.origin}/missing`, reason: "HTTP 404" },
        { url: `${fixture.origin}/brochure.pdf`, reason: "not HTML (application/pdf)" },
      ]);
      expect(fixture.requested).not.to.include("/private/staff");
      expect(new Set(fixture.userAgents)).to.deep.equal(
        new Set(["Sitevoice-Crawler/0.1.0 (+https://voice.example/crawler)"]),
      );
      const stored = await service.store.crawls.latestDone(siteId);
      expect(JSON.parse(stored!.pages!).map((p: { url: string }) => p.url)).to.deep.equal(
        ["/", "/about", "/menu", "/events", "/team"].map((p) => `${fixture.origin}${p}`),
      );
      // A crawl runs once: its job run again finds it ended.
      expect(await service.crawls.run(queued.id)).to.equal(undefined);

      // Site intelligence serves what it found, the crawl's end having regenerated its row.
      const known = await request(service.url)
        .get(`/v1/${siteId}/site-intelligence`)
        .set("Origin", fixture.origin);
      expect(known.status, JSON.stringify(known.body)).to.equal(200);
      const { site } = known.body.data;
      expect(site.origin).to.equal(fixture.origin);
      expect(site.totalPages).to.equal(5);
      expect(site.pages[2]).to.deep.equal({
        url: `${fixture.origin}/menu`,
        title: "Menu & prices",
        description: "Starters, mains and desserts.",
        sectionIds: ["menu", "starters", "mains", "desserts", "sweet"],
        // Of its headings, only the last has text under it: one section of text.
        sections: 1,
      });
      expect(known.body.data.personality_prompt).to.include("Menu & prices");
    });

    it("counts the pages of a crawl again as unchanged when their text is the same", async () => {
      const siteId = await createSite();
      await service.crawls.run((await crawlsOf(siteId)).body.data[0].id);
      const again = await api("post", `/v1/sites/${siteId}/refresh`);
      await service.crawls.run(again.body.data.crawl_id);
      const [latest] = (await crawlsOf(siteId)).body.data;
      expect(latest).to.include({
        id: again.body.data.crawl_id,
        status: "done",
        pages: 5,
        pages_fetched: 8,
        pages_unchanged: 5,
        pages_changed: 0,
        pages_removed: 0,
      });
    });

    it("serves the page the crawler's user agent points to, without a key", async () => {
      const answer = await request(service.url).get("/crawler");
      expect(answer.status).to.equal(200);
      expect(answer.headers["content-type"]).to.match(/^text\/html/);
      expect(answer.text).to.include("Sitevoice-Crawler/0.1.0");
      expect(answer.text).to.include("User-agent: Sitevoice-Crawler\nDisallow: /");
      expect(answer.text).to.include('&lt;meta name="robots" content="noindex"&gt;');
    });

    it("answers a refresh with 202 and the crawl under way, the same one until it ends", async () => {
      const siteId = await createSite();
      const first = await api("post", `/v1/sites/${siteId}/refresh`);
      expect(first.status).to.equal(202);
      const created = (await crawlsOf(siteId)).body.data[0];
      // The site's first crawl is still queued: the refresh is that crawl.
      expect(first.body.data).to.deep.equal({ crawl_id: created.id, status: "queued" });
      const again = await api("post", `/v1/sites/${siteId}/refresh`);
      expect(again.body.data.crawl_id).to.equal(created.id);

      await service.crawls.run(created.id);
      const fresh = await api("post", `/v1/sites/${siteId}/refresh`);
      expect(fresh.status).to.equal(202);
      expect(fresh.body.data.crawl_id).not.to.equal(created.id);
      expect(fresh.body.data.status).to.equal("queued");
      const listed = (await crawlsOf(siteId)).body.data;
      expect(listed.map((c: { id: string }) => c.id)).to.deep.equal([
        fresh.body.data.crawl_id,
        created.id,
      ]);
      expect(listed[0].trigger).to.equal("refresh");
    });

    it("answers the 21st refresh of a site in an hour with 429, a stranger's taking none", async () => {
      const siteId = await createSite();
      const stranger = await service.key(await service.workspace());
      for (let i = 0; i < 5; i++) {
        expect((await api("post", `/v1/sites/${siteId}/refresh`, stranger)).status).to.equal(404);
      }
      for (let i = 0; i < 20; i++) {
        const admitted = await api("post", `/v1/sites/${siteId}/refresh`);
        expect(admitted.status, `refresh ${i + 1}`).to.equal(202);
        expect(admitted.headers["ratelimit-remaining"]).to.equal(String(19 - i));
      }
      const refused = await api("post", `/v1/sites/${siteId}/refresh`);
      expect(refused.status).to.equal(429);
      expect(refused.body.error.code).to.equal("rate_limited");
      expect(Number(refused.headers["retry-after"])).to.be.within(1, 3600);
      // Another site of the workspace has its own budget.
      const otherSite = await createSite(other.domain);
      expect((await api("post", `/v1/sites/${otherSite}/refresh`)).status).to.equal(202);
    });

    it("gives concurrent refreshes one crawl", async () => {
      const siteId = await createSite();
      await service.crawls.run((await crawlsOf(siteId)).body.data[0].id);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => api("post", `/v1/sites/${siteId}/refresh`)),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(Array(8).fill(202));
      expect(new Set(answers.map((a) => a.body.data.crawl_id)).size).to.equal(1);
      expect((await crawlsOf(siteId)).body.data).to.have.length(2);
    });

    it("queues a crawl of the new domain when the domain changes, and none otherwise", async () => {
      const siteId = await createSite();
      await service.crawls.run((await crawlsOf(siteId)).body.data[0].id);
      const renamed = await api("patch", `/v1/sites/${siteId}`).send({ business_name: "Luigi's" });
      expect(renamed.status).to.equal(200);
      expect((await crawlsOf(siteId)).body.data).to.have.length(1);

      const moved = await api("patch", `/v1/sites/${siteId}`).send({ domain: other.domain });
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
      const [queued] = (await crawlsOf(siteId)).body.data;
      expect(queued).to.include({ trigger: "domain_change", status: "queued" });
      other.requested.length = 0;
      await service.crawls.run(queued.id);
      expect(other.requested[0]).to.equal("/robots.txt");
      const [done] = (await crawlsOf(siteId)).body.data;
      expect(done).to.include({ status: "done", pages: 5 });
    });

    it("records a crawl of a site that does not answer as failed, with the reason", async () => {
      const down = await startSiteServer();
      const domain = down.domain;
      await down.close();
      const siteId = await createSite(domain);
      const [queued] = (await crawlsOf(siteId)).body.data;
      await service.crawls.run(queued.id);
      const [failed] = (await crawlsOf(siteId)).body.data;
      expect(failed).to.include({ status: "failed", pages: 0 });
      expect(failed.errors).to.have.length(1);
      expect(failed.errors[0].url).to.equal(`http://${domain}/robots.txt`);
      expect(failed.errors[0].reason).to.be.a("string").and.not.equal("");
    });

    it("pages the crawls newest first with a cursor", async () => {
      const siteId = await createSite();
      for (let i = 0; i < 3; i++) {
        const { body } = await api("post", `/v1/sites/${siteId}/refresh`);
        await service.crawls.run(body.data.crawl_id);
      }
      const all = (await crawlsOf(siteId)).body.data.map((c: { id: string }) => c.id);
      expect(all).to.have.length(3);
      const first = await crawlsOf(siteId, "?limit=2");
      expect(first.body.data.map((c: { id: string }) => c.id)).to.deep.equal(all.slice(0, 2));
      const cursor = first.body.meta.next_cursor as string;
      const second = await crawlsOf(siteId, `?limit=2&cursor=${cursor}`);
      expect(second.body.data.map((c: { id: string }) => c.id)).to.deep.equal(all.slice(2));
      expect(second.body.meta.next_cursor).to.equal(null);
    });

    it("refuses bad list parameters with 400 naming the parameter", async () => {
      const siteId = await createSite();
      for (const [query, field] of [
        ["?limit=0", "limit"],
        ["?limit=201", "limit"],
        ["?limit=ten", "limit"],
        ["?cursor=not-ours", "cursor"],
        ["?since=2026-01-01", "since"],
      ]) {
        const refused = await api("get", `/v1/sites/${siteId}/crawls${query}`);
        expect(refused.status, query).to.equal(400);
        expect(refused.body.error.code, query).to.equal("invalid_request");
        expect(refused.body.error.details.field, query).to.equal(field);
      }
      const withQuery = await api("post", `/v1/sites/${siteId}/refresh?now=1`);
      expect(withQuery.status).to.equal(400);
      const wrongMethod = await api("get", `/v1/sites/${siteId}/refresh`);
      expect(wrongMethod.status).to.equal(405);
    });

    it("lets only a key with the right scope of the site's workspace refresh or list", async () => {
      const siteId = await createSite();
      const scoped = async (scopes: Scope[]) => service.key(workspace, { scopes });
      const none = await request(service.url).post(`/v1/sites/${siteId}/refresh`);
      expect(none.status).to.equal(401);
      const readOnly = await scoped(["sites:read"]);
      const refused = await api("post", `/v1/sites/${siteId}/refresh`, readOnly);
      expect(refused.status).to.equal(403);
      expect((await api("get", `/v1/sites/${siteId}/crawls`, readOnly)).status).to.equal(200);
      const writeOnly = await scoped(["sites:write"]);
      expect((await api("get", `/v1/sites/${siteId}/crawls`, writeOnly)).status).to.equal(403);

      const stranger = await service.key(await service.workspace());
      for (const [method, path] of [
        ["post", `/v1/sites/${siteId}/refresh`],
        ["get", `/v1/sites/${siteId}/crawls`],
        ["post", "/v1/sites/site_nope/refresh"],
      ] as const) {
        const answer = await api(method, path, stranger);
        expect(answer.status, path).to.equal(404);
        expect(answer.body.error.code, path).to.equal("not_found");
      }
      const otherSite = await createSite(other.domain);
      const limited = await service.key(workspace, { siteIds: [otherSite] });
      expect((await api("post", `/v1/sites/${siteId}/refresh`, limited)).status).to.equal(403);
      // Nothing was queued by any refusal.
      expect((await crawlsOf(siteId)).body.data).to.have.length(1);
    });

    it("gives a crawl under way back at a stop: queued again, for any instance", async () => {
      // A site whose robots.txt never answers: the crawl waits until stopped.
      const hanging = http.createServer(() => {});
      await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
      const domain = `127.0.0.1:${(hanging.address() as AddressInfo).port}`;
      const siteId = await createSite(domain);
      const queued = await service.store.crawls.active(siteId);
      const policy = new OutboundPolicy({
        allowPrivateNetworks: false,
        allow: parseOutboundAllowList(domain),
      });
      const network = pluginNetwork(policy);
      const crawls = new CrawlService({
        store: service.store,
        sites: service.sites,
        request: network.request,
        settings: { crawler: { contactUrl: "https://voice.example/crawler", maxPages: 10 } },
        logger: pino({ level: "silent" }),
        intelligence: { crawled: async () => {}, invalidate: async () => {} },
        knowledge: new CrawlKnowledge({
          store: service.store,
          holder: service.knowledge,
          logger: pino({ level: "silent" }),
        }),
        instanceName: "leaving",
      });
      const running = crawls.run(queued!.id);
      while (!(await service.store.crawls.get(queued!.id))?.lease_owner?.startsWith("leaving")) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await crawls.stop();
      expect(await running).to.equal(undefined);
      const back = await service.store.crawls.get(queued!.id);
      expect(back).to.include({ status: "queued", dispatched_at: null, lease_owner: null });
      expect(back?.active_site_id).to.equal(siteId);
      await network.close?.();
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    });
  });
}
