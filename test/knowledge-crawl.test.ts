/**
 * A site's knowledge kept by its crawls, on each of the three databases, against the knowledge
 * fixture site served for real (test/helpers/knowledge-site-server.ts, its access log showing
 * each request's conditional headers): the first crawl stores every page's passages; a re-crawl
 * of the unchanged site asks conditionally and indexes nothing again; a changed page is indexed
 * again alone; a removed page leaves the store and the search; a page that fails for a while, or
 * a crawl that fails, takes nothing away. Searched through the KnowledgeService: on this
 * instance, on another loading the stored index (and seeing a later crawl within 5 s), from an
 * index stored in another format; none for a site never crawled; dropped with the site.
 *
 * The service runs with SITEVOICE_JOBS=off: each test runs its crawls itself (`crawls.run`).
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { pino } from "pino";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { extractContent } from "../core/intelligence/knowledge/page-content.ts";
import { toPassages } from "../core/intelligence/knowledge/passages.ts";
import { KNOWLEDGE_INDEX_FORMAT } from "../core/intelligence/knowledge/knowledge-index.ts";
import {
  KNOWLEDGE_RECHECK_MS,
  KnowledgeService,
} from "../core/intelligence/knowledge/knowledge-service.ts";
import type { Passage } from "../core/intelligence/knowledge/knowledge-types.ts";
import { localChannel } from "../core/pubsub/channel.ts";
import type { CrawlRow } from "../core/store/repos/crawls-repo.ts";
import { startFailingProxy, type FailingProxy } from "./helpers/failing-proxy.ts";
import {
  KNOWLEDGE_SITE_PAGES,
  startKnowledgeSite,
  type KnowledgeSite,
} from "./helpers/knowledge-site-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

/** The fixture's pages a crawl reads (robots.txt keeps it out of /staff/). */
const PAGES = KNOWLEDGE_SITE_PAGES.filter((path) => !path.startsWith("/staff/"));
/** The pages' languages (`en-GB`, and the German pages' `de`). */
const FIXTURE_LANGUAGES = ["de", "en"];

/** A question only one passage answers. */
const QUESTION = "Do you offer zirconia implants if I have a metal allergy?";
const ANSWER = { path: "/services/implants", sectionId: "implant-materials", text: "zirconia" };

/** The page a test changes, the sentence added and a question only it answers. */
const CHANGED_PATH = "/opening-hours";
const NEW_TEXT = "Greta at reception also speaks Swedish.";
const NEW_TEXT_QUESTION = "Does anyone at the practice speak Swedish?";
const changedText = (html: string) =>
  html.replace("book online around the clock.", `book online around the clock. ${NEW_TEXT}`);
/** The same page in other markup, its text the same. */
const sameText = (html: string) =>
  html
    .replace('<body class="page hours">', '<body class="page hours redesign-2025">')
    .replace("<main>", '<main data-layout="wide"><!-- new layout -->');

/** The page a test removes, and a question it answers. */
const REMOVED_PATH = "/services/orthodontics";
const REMOVED_QUESTION = "How long does treatment with clear aligners take?";

/** The HTML the fixture serves for `path` now. */
const pageHtml = async (origin: string, path: string) => (await fetch(`${origin}${path}`)).text();

for (const target of databaseTargets) {
  describe(`site knowledge kept by crawls on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let site: KnowledgeSite;
    let proxy: FailingProxy | undefined;
    let workspace: string;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_JOBS: "off",
        SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      });
    });
    beforeEach(async () => {
      site = await startKnowledgeSite({ etag: true, lastModified: true });
      workspace = await service.workspace();
    });
    afterEach(async () => {
      await proxy?.close();
      proxy = undefined;
      await site?.close();
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    /** A new site on `domain` (the fixture's by default); its first crawl is queued with it. */
    async function newSite(domain = site.domain): Promise<string> {
      const siteId = `kn-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspace, "test"), {
        site_id: siteId,
        business_name: "Corner Bakery",
        business_description: "Bread and cakes.",
        domain,
        language: "en",
      });
      return siteId;
    }

    /** Runs the site's queued crawl, or a new one; the crawl as it ended. */
    async function crawl(siteId: string): Promise<CrawlRow> {
      const queued =
        (await service.store.crawls.active(siteId)) ??
        (await service.crawls.queue(siteId, "refresh"));
      const ended = await service.crawls.run(queued.id);
      if (ended === undefined) throw new Error(`crawl ${queued.id} did not run`);
      return ended;
    }

    const counts = (row: CrawlRow) => ({
      fetched: row.pages_fetched,
      unchanged: row.pages_unchanged,
      changed: row.pages_changed,
      removed: row.pages_removed,
    });

    /** The site's stored pages: URL → {passages, crawl_id}. */
    async function storedPages(siteId: string) {
      const rows: { url: string; passages: string; crawl_id: string }[] = await service.store.db
        .knex("site_pages")
        .select("url", "passages", "crawl_id")
        .where({ site_id: siteId });
      return new Map(
        rows.map((row) => [
          row.url,
          { passages: JSON.parse(row.passages) as Passage[], crawl_id: row.crawl_id },
        ]),
      );
    }

    const knowledgeRow = (siteId: string) => service.store.siteKnowledge.get(siteId);

    /** What the extractor makes of a fixture page as served now. */
    async function expectedPassages(origin: string, path: string): Promise<Passage[]> {
      const url = `${origin}${path}`;
      const html = await (await fetch(url)).text();
      return toPassages(extractContent(html, url));
    }

    /** The requests for the fixture's HTML pages in the site's log. */
    const pageRequests = () => site.log.filter((entry) => PAGES.includes(entry.path));

    it("stores every page's passages on the first crawl, all counted changed", async () => {
      const siteId = await newSite();
      const ended = await crawl(siteId);
      expect(ended.status).to.equal("done");
      expect(counts(ended)).to.deep.equal({
        fetched: PAGES.length,
        unchanged: 0,
        changed: PAGES.length,
        removed: 0,
      });
      const expected = new Map<string, Passage[]>();
      for (const path of PAGES) {
        expected.set(`${site.origin}${path}`, await expectedPassages(site.origin, path));
      }
      const stored = await storedPages(siteId);
      expect(new Map([...stored].map(([url, row]) => [url, row.passages]))).to.deep.equal(expected);
      const knowledge = await knowledgeRow(siteId);
      expect(knowledge?.format).to.equal(KNOWLEDGE_INDEX_FORMAT);
      expect(knowledge?.pages).to.equal(PAGES.length);
      expect(knowledge?.passages).to.equal([...expected.values()].flat().length);
    });

    for (const validator of ["etag", "lastModified"] as const) {
      it(`asks for every page again conditionally (${validator} only) and indexes none again`, async () => {
        await site.close();
        site = await startKnowledgeSite({ [validator]: true });
        const siteId = await newSite();
        const first = await crawl(siteId);
        const before = await knowledgeRow(siteId);
        site.clearLog();

        const again = await crawl(siteId);
        expect(counts(again)).to.deep.equal({
          fetched: PAGES.length,
          unchanged: PAGES.length,
          changed: 0,
          removed: 0,
        });
        const header = validator === "etag" ? "ifNoneMatch" : "ifModifiedSince";
        expect(
          pageRequests().map((entry) => [entry.path, entry.status, entry[header] !== undefined]),
        ).to.have.deep.members(PAGES.map((path) => [path, 304, true]));
        const after = await knowledgeRow(siteId);
        expect(after?.built_at).to.equal(before?.built_at);
        expect(after?.serialized).to.equal(before?.serialized);
        const stored = await storedPages(siteId);
        expect(new Set([...stored.values()].map((row) => row.crawl_id))).to.deep.equal(
          new Set([first.id]),
        );
      });
    }

    it("indexes a changed page again, and only it", async () => {
      const siteId = await newSite();
      const first = await crawl(siteId);
      const before = await knowledgeRow(siteId);
      site.setPage(CHANGED_PATH, changedText(await pageHtml(site.origin, CHANGED_PATH)));

      const again = await crawl(siteId);
      expect(counts(again)).to.deep.equal({
        fetched: PAGES.length,
        unchanged: PAGES.length - 1,
        changed: 1,
        removed: 0,
      });
      const stored = await storedPages(siteId);
      expect(
        [...stored].filter(([, row]) => row.crawl_id === again.id).map(([url]) => url),
      ).to.deep.equal([`${site.origin}${CHANGED_PATH}`]);
      expect(stored.get(`${site.origin}${CHANGED_PATH}`)?.passages).to.deep.equal(
        await expectedPassages(site.origin, CHANGED_PATH),
      );
      expect([...stored.values()].filter((row) => row.crawl_id === first.id)).to.have.length(
        PAGES.length - 1,
      );
      expect((await knowledgeRow(siteId))?.built_at).to.be.above(before!.built_at);
      const [hit] = await service.knowledge.search(siteId, NEW_TEXT_QUESTION, 3);
      expect(hit?.url).to.equal(`${site.origin}${CHANGED_PATH}`);
    });

    it("counts a page whose markup changed but whose text did not as unchanged", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      const before = await knowledgeRow(siteId);
      site.setPage(CHANGED_PATH, sameText(await pageHtml(site.origin, CHANGED_PATH)));

      const again = await crawl(siteId);
      expect(counts(again)).to.deep.equal({
        fetched: PAGES.length,
        unchanged: PAGES.length,
        changed: 0,
        removed: 0,
      });
      expect(site.requestsFor(CHANGED_PATH).at(-1)?.status).to.equal(200);
      expect((await knowledgeRow(siteId))?.built_at).to.equal(before?.built_at);
    });

    it("removes a removed page's rows and its passages from the search", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      const url = `${site.origin}${REMOVED_PATH}`;
      expect(
        (await service.knowledge.search(siteId, REMOVED_QUESTION, 5)).map((h) => h.url),
      ).to.include(url);
      site.removePage(REMOVED_PATH);

      const again = await crawl(siteId);
      // No more in the sitemap: not asked for.
      expect(counts(again)).to.deep.equal({
        fetched: PAGES.length - 1,
        unchanged: PAGES.length - 1,
        changed: 0,
        removed: 1,
      });
      expect((await storedPages(siteId)).has(url)).to.equal(false);
      const hits = await service.knowledge.search(siteId, REMOVED_QUESTION, 5);
      expect(hits.map((h) => h.url)).not.to.include(url);
      expect((await service.knowledge.stats(siteId)).pages).to.equal(PAGES.length - 1);
    });

    it("keeps the rows of a page that answers 500 on a re-crawl, and lists it as failed", async () => {
      proxy = await startFailingProxy(site.origin);
      const siteId = await newSite(proxy.domain);
      await crawl(siteId);
      const before = await storedPages(siteId);
      proxy.fail(REMOVED_PATH, 500);

      const again = await crawl(siteId);
      expect(again.status, again.errors ?? "").to.equal("done");
      expect(counts(again)).to.deep.equal({
        fetched: PAGES.length,
        unchanged: PAGES.length - 1,
        changed: 0,
        removed: 0,
      });
      expect(await storedPages(siteId)).to.deep.equal(before);
      expect(await service.knowledge.failures(siteId)).to.deep.include({
        url: `${proxy.origin}${REMOVED_PATH}`,
        reason: "HTTP 500",
      });
    });

    it("removes nothing after a crawl that failed", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      const before = await storedPages(siteId);
      const index = await knowledgeRow(siteId);
      await site.close(); // robots.txt unreachable: the crawl fails

      const failed = await crawl(siteId);
      expect(failed.status).to.equal("failed");
      expect(counts(failed)).to.deep.equal({ fetched: 0, unchanged: 0, changed: 0, removed: 0 });
      expect(await storedPages(siteId)).to.deep.equal(before);
      expect(await knowledgeRow(siteId)).to.deep.equal(index);
      site = await startKnowledgeSite({});
    });

    it("finds a passage through the KnowledgeService, and says what the knowledge holds", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      const [hit] = await service.knowledge.search(siteId, QUESTION, 3);
      expect(hit).to.include({ url: `${site.origin}${ANSWER.path}`, section_id: ANSWER.sectionId });
      expect(hit?.text).to.include(ANSWER.text);
      const stats = await service.knowledge.stats(siteId);
      const stored = await storedPages(siteId);
      expect(stats).to.include({
        pages: PAGES.length,
        passages: [...stored.values()].flatMap((row) => row.passages).length,
      });
      expect(stats.languages).to.deep.equal(FIXTURE_LANGUAGES);
      expect(Date.parse(stats.indexed_at!)).to.equal((await knowledgeRow(siteId))!.built_at);
      const pages = await service.knowledge.pages(siteId);
      expect(pages.map((page) => page.url)).to.deep.equal(
        PAGES.map((path) => `${site.origin}${path}`).sort(),
      );
    });

    it("gives site intelligence each page's section count and when the knowledge was built", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      await service.intelligence.idle();
      const answer = await request(service.url)
        .get(`/v1/${siteId}/site-intelligence`)
        .set("Origin", site.origin);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const expected: Record<string, number> = {};
      for (const path of PAGES) {
        const url = `${site.origin}${path}`;
        expected[url] = extractContent(await pageHtml(site.origin, path), url).sections.length;
      }
      const { pages, knowledge } = answer.body.data.site;
      expect(
        Object.fromEntries(
          pages.map((p: { url: string; sections: number }) => [p.url, p.sections]),
        ),
      ).to.deep.equal(expected);
      expect(knowledge.updatedAt).to.equal(
        new Date((await knowledgeRow(siteId))!.built_at).toISOString(),
      );
    });

    it("tells the agent of search_site in the site intelligence's prompt once it has knowledge", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      await service.intelligence.idle();
      const answer = await request(service.url)
        .get(`/v1/${siteId}/site-intelligence`)
        .set("Origin", site.origin);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body.data.personality_prompt).to.include("search_site tool");
    });

    it("answers an empty search and zero counts for a site never crawled", async () => {
      const siteId = await newSite();
      expect(await service.knowledge.search(siteId, QUESTION, 3)).to.deep.equal([]);
      expect(await service.knowledge.stats(siteId)).to.deep.equal({
        pages: 0,
        sections: 0,
        passages: 0,
        languages: [],
        indexed_at: null,
      });
      expect(await service.knowledge.pages(siteId)).to.deep.equal([]);
      expect(await service.knowledge.failures(siteId)).to.deep.equal([]);
    });

    /** Another instance on the same store, on a clock of its own. */
    function otherInstance(clock = { now: Date.now() }) {
      return new KnowledgeService({
        store: service.store,
        logger: pino({ level: "silent" }),
        cacheBytes: 64 * 1024 * 1024,
        channel: localChannel(),
        now: () => clock.now,
      });
    }

    it("answers the same on another instance, which loads the stored index", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      const before = await knowledgeRow(siteId);
      const other = otherInstance();
      expect(await other.search(siteId, QUESTION, 5)).to.deep.equal(
        await service.knowledge.search(siteId, QUESTION, 5),
      );
      expect(other.holds(siteId)).to.equal(true);
      expect(await knowledgeRow(siteId)).to.deep.equal(before);
    });

    it("sees a crawl another instance ran once 5 s have passed", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      const clock = { now: Date.now() };
      const other = otherInstance(clock);
      expect(await other.search(siteId, NEW_TEXT_QUESTION, 3)).not.to.satisfy(
        (hits: { url: string }[]) =>
          hits.some((hit) => hit.url === `${site.origin}${CHANGED_PATH}`),
      );
      site.setPage(CHANGED_PATH, changedText(await pageHtml(site.origin, CHANGED_PATH)));
      await crawl(siteId);

      clock.now += KNOWLEDGE_RECHECK_MS - 1;
      const [stale] = await other.search(siteId, NEW_TEXT_QUESTION, 1);
      expect(stale?.text ?? "").not.to.include(NEW_TEXT);
      clock.now += 1;
      const [fresh] = await other.search(siteId, NEW_TEXT_QUESTION, 1);
      expect(fresh?.text).to.include(NEW_TEXT);
    });

    it("builds an index stored in another format again from the stored pages, and stores it", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      const expected = await service.knowledge.search(siteId, QUESTION, 5);
      const before = await knowledgeRow(siteId);
      await service.store.db
        .knex("site_knowledge")
        .where({ site_id: siteId })
        .update({ format: 0, serialized: "{}" });

      const other = otherInstance({ now: before!.built_at + 60_000 });
      expect(await other.search(siteId, QUESTION, 5)).to.deep.equal(expected);
      const after = await knowledgeRow(siteId);
      expect(after?.format).to.equal(KNOWLEDGE_INDEX_FORMAT);
      expect(after?.serialized).to.equal(before?.serialized);
      expect(after?.built_at).to.equal(before!.built_at + 60_000);
      // A third instance loads what the second stored.
      expect(await otherInstance().search(siteId, QUESTION, 5)).to.deep.equal(expected);
      expect((await knowledgeRow(siteId))?.built_at).to.equal(before!.built_at + 60_000);
    });

    it("deletes the site's pages and index with the site, and drops the index held", async () => {
      const siteId = await newSite();
      await crawl(siteId);
      expect(await service.knowledge.search(siteId, QUESTION, 1)).to.have.length(1);
      expect(service.knowledge.holds(siteId)).to.equal(true);

      await service.sites.delete(operatorPrincipal(workspace, "test"), siteId);
      await service.knowledge.idle();
      expect(service.knowledge.holds(siteId)).to.equal(false);
      const knex = service.store.db.knex;
      expect(await knex("site_pages").where({ site_id: siteId })).to.deep.equal([]);
      expect(await knex("site_knowledge").where({ site_id: siteId })).to.deep.equal([]);
      expect(await service.knowledge.search(siteId, QUESTION, 1)).to.deep.equal([]);
    });
  });
}
