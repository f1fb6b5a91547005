/**
 * The vectors a crawl stores with a site's knowledge (SITEVOICE_EMBEDDINGS), on each of the three
 * databases, against the knowledge fixture site and OpenAI's stand-in (its embeddings recorded):
 * with the setting off nothing is sent and no vector stored; on, the first crawl stores a vector
 * for every passage, a re-crawl of the unchanged site sends no text, a changed page sends only
 * its passages; a site indexed without vectors, or with another provider's, gets them at its next
 * crawl even though no page changed; a provider failing at index time leaves the keyword index
 * stored alone, logged without the passages' text, and the crawl done.
 *
 * The service runs with SITEVOICE_JOBS=off: each test runs its crawls itself (`crawls.run`).
 */
import crypto from "node:crypto";
import { Writable } from "node:stream";
import { expect } from "chai";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { Passage } from "../core/intelligence/knowledge/knowledge-types.ts";
import { embeddingText } from "../core/intelligence/knowledge/passage-vectors.ts";
import { VectorIndex } from "../core/intelligence/knowledge/vector-index.ts";
import type { CrawlRow } from "../core/store/repos/crawls-repo.ts";
import { startKnowledgeSite, type KnowledgeSite } from "./helpers/knowledge-site-server.ts";
import { EMBEDDINGS_PATH, standinEmbedding } from "./helpers/openai-embeddings.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

/** The page a test changes, and its new sentence. */
const CHANGED_PATH = "/opening-hours";
const NEW_TEXT = "Greta at reception also speaks Swedish.";
const changedText = (html: string) =>
  html.replace("book online around the clock.", `book online around the clock. ${NEW_TEXT}`);

/** A question the keyword index answers from the implants page. */
const QUESTION = "Do you offer zirconia implants if I have a metal allergy?";

/** The length of the OpenAI provider's vectors. */
const DIMENSIONS = 256;

for (const target of databaseTargets) {
  describe(`site knowledge vectors kept by crawls on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let openai: OpenAiStandin;
    let site: KnowledgeSite;
    let service: TestService | undefined;
    const logLines: string[] = [];

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      openai = await startOpenAiStandin();
    });
    beforeEach(async () => {
      site = await startKnowledgeSite();
      openai.behaviour = "mint";
    });
    afterEach(async () => {
      await site?.close();
    });
    after(async () => {
      await openai?.close();
      await database?.drop();
    });

    /** The service on the suite's database, OpenAI's stand-in its provider; logs kept. */
    async function startService(env: Record<string, string>): Promise<TestService> {
      const logs = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
          done();
        },
      });
      return startTestService(
        database!.url,
        {
          SITEVOICE_JOBS: "off",
          SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
          OPENAI_API_KEY: openai.apiKey,
          OPENAI_BASE_URL: openai.baseUrl,
          LOG_LEVEL: "info",
          ...env,
        },
        { logs },
      );
    }

    /** A new site on the fixture; its first crawl is queued with it. */
    async function newSite(): Promise<string> {
      const siteId = `kv-${crypto.randomBytes(4).toString("hex")}`;
      await service!.sites.create(operatorPrincipal(await service!.workspace(), "test"), {
        site_id: siteId,
        business_name: "Lindenhof Dental",
        business_description: "A dental practice in Freiburg",
        domain: site.domain,
        language: "en",
      });
      return siteId;
    }

    /** Runs the site's queued crawl, or a new one; the crawl as it ended. */
    async function crawl(siteId: string): Promise<CrawlRow> {
      const queued =
        (await service!.store.crawls.active(siteId)) ??
        (await service!.crawls.queue(siteId, "refresh"));
      const ended = await service!.crawls.run(queued.id);
      if (ended === undefined) throw new Error(`crawl ${queued.id} did not run`);
      return ended;
    }

    /** Every passage the site's pages hold as stored. */
    async function storedPassages(siteId: string): Promise<Passage[]> {
      const pages = await service!.store.siteKnowledge.passages(siteId);
      return pages.flatMap((page) => JSON.parse(page.passages) as Passage[]);
    }

    /** The texts sent to the stand-in's embeddings endpoint since `from`. */
    const embedded = (from = 0) =>
      openai.requests
        .slice(from)
        .filter((r) => r.path === EMBEDDINGS_PATH)
        .flatMap((r) => (r.body as { input: string[] }).input);

    const knowledgeRow = (siteId: string) => service!.store.siteKnowledge.get(siteId);

    /** The site's stored vectors, loaded. */
    async function storedVectors(siteId: string): Promise<VectorIndex> {
      const row = await knowledgeRow(siteId);
      expect(row?.vectors, "vectors stored").to.be.a("string");
      return VectorIndex.load(row!.vectors!);
    }

    describe("with embeddings off", () => {
      before(async () => {
        service = await startService({});
      });
      after(async () => {
        await service?.stop();
        service = undefined;
      });

      it("sends the provider nothing, crawling and searching, and stores no vectors", async () => {
        const siteId = await newSite();
        const from = openai.requests.length;
        expect((await crawl(siteId)).status).to.equal("done");
        expect(await service!.knowledge.search(siteId, QUESTION, 3)).to.have.length.above(0);
        expect(openai.requests.slice(from)).to.deep.equal([]);
        const row = await knowledgeRow(siteId);
        expect(row?.passages).to.be.above(0);
        expect({ vectors: row?.vectors, provider: row?.vectors_provider }).to.deep.equal({
          vectors: null,
          provider: null,
        });
      });
    });

    describe("with embeddings from OpenAI", () => {
      before(async () => {
        service = await startService({ SITEVOICE_EMBEDDINGS: "openai" });
      });
      after(async () => {
        await service?.stop();
        service = undefined;
      });

      it("stores a vector for every passage at the first crawl, made of its title, heading and text", async () => {
        const siteId = await newSite();
        const from = openai.requests.length;
        expect((await crawl(siteId)).status).to.equal("done");
        const passages = await storedPassages(siteId);
        expect(embedded(from)).to.have.members(passages.map(embeddingText));
        const vectors = await storedVectors(siteId);
        expect(vectors.size).to.equal(passages.length);
        for (const passage of passages) {
          const expected = VectorIndex.build(
            [passage.id],
            [Float32Array.from(standinEmbedding(embeddingText(passage), DIMENSIONS))],
          );
          expect(vectors.vector(passage.id), passage.id).to.deep.equal(expected.vector(passage.id));
        }
        expect((await knowledgeRow(siteId))?.vectors_provider).to.equal("openai");
      });

      it("sends no text when it crawls the unchanged site again", async () => {
        const siteId = await newSite();
        await crawl(siteId);
        const before = await knowledgeRow(siteId);
        const from = openai.requests.length;
        await crawl(siteId);
        expect(openai.requests.slice(from)).to.deep.equal([]);
        expect((await knowledgeRow(siteId))?.vectors).to.equal(before?.vectors);
      });

      it("sends only a changed page's passages, and keeps the other passages' vectors", async () => {
        const siteId = await newSite();
        await crawl(siteId);
        const before = await storedVectors(siteId);
        const html = await (await fetch(`${site.origin}${CHANGED_PATH}`)).text();
        site.setPage(CHANGED_PATH, changedText(html));
        const from = openai.requests.length;

        await crawl(siteId);
        const passages = await storedPassages(siteId);
        const changedUrl = `${site.origin}${CHANGED_PATH}`;
        const changed = passages.filter((p) => p.url === changedUrl);
        expect(changed.map((p) => p.text).join(" ")).to.include(NEW_TEXT);
        expect(embedded(from)).to.have.members(changed.map(embeddingText));
        const after = await storedVectors(siteId);
        expect(after.size).to.equal(passages.length);
        for (const passage of passages.filter((p) => p.url !== changedUrl)) {
          expect(after.vector(passage.id), passage.id).to.deep.equal(before.vector(passage.id));
        }
      });

      it("makes the vectors of a site indexed while embeddings were off, though no page changed", async () => {
        const siteId = await newSite();
        await crawl(siteId);
        await service!.store.db
          .knex("site_knowledge")
          .where({ site_id: siteId })
          .update({ vectors: null, vectors_provider: null });
        const from = openai.requests.length;

        const again = await crawl(siteId);
        expect(again.pages_changed).to.equal(0);
        const passages = await storedPassages(siteId);
        expect(embedded(from)).to.have.members(passages.map(embeddingText));
        expect((await storedVectors(siteId)).size).to.equal(passages.length);
        expect((await knowledgeRow(siteId))?.vectors_provider).to.equal("openai");
      });

      it("makes the vectors again when another provider made the stored ones", async () => {
        const siteId = await newSite();
        await crawl(siteId);
        await service!.store.db
          .knex("site_knowledge")
          .where({ site_id: siteId })
          .update({ vectors_provider: "another-provider" });
        const from = openai.requests.length;

        await crawl(siteId);
        const passages = await storedPassages(siteId);
        expect(embedded(from)).to.have.members(passages.map(embeddingText));
        expect((await knowledgeRow(siteId))?.vectors_provider).to.equal("openai");
      });

      it("stores the keyword index alone when the provider fails at index time, and logs it without the passages' text", async () => {
        const siteId = await newSite();
        openai.behaviour = "fail";
        const lines = logLines.length;

        const ended = await crawl(siteId);
        expect(ended.status).to.equal("done");
        const row = await knowledgeRow(siteId);
        expect(row?.passages).to.be.above(0);
        expect({ vectors: row?.vectors, provider: row?.vectors_provider }).to.deep.equal({
          vectors: null,
          provider: null,
        });
        const logged = logLines.slice(lines);
        const warning = logged.find((line) => line.includes('"site knowledge vectors not made'));
        expect(warning, logged.join("\n")).to.be.a("string");
        expect(JSON.parse(warning!)).to.include({ site_id: siteId, crawl_id: ended.id });
        for (const passage of await storedPassages(siteId)) {
          const words = passage.text.slice(0, 40);
          expect(
            logged.filter((line) => line.includes(words)),
            words,
          ).to.deep.equal([]);
        }
        openai.behaviour = "mint";
        const [hit] = await service!.knowledge.search(siteId, QUESTION, 1);
        expect(hit?.url).to.equal(`${site.origin}/services/implants`);
      });
    });
  });
}
