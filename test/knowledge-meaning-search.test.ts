/**
 * Searches of a site's knowledge with embeddings on (SITEVOICE_EMBEDDINGS=openai, OpenAI's
 * stand-in answering), on each of the three databases: the knowledge fixture site crawled once,
 * then asked through the service's KnowledgeService and through other instances on the same
 * store (a timeout, a logger, a cache bound or no embedder of their own). A question whose words
 * the keyword index misses finds its passage by meaning; a passage both rankings put first scores
 * 1; a provider slower than the timeout, failing, or a client gone leaves the keyword answer,
 * logged without the question's words; the vectors count in what an instance holds; with
 * embeddings off nothing is asked of the provider, vectors stored or not.
 *
 * The stand-in's vectors are a hashed bag of words with a few synonyms (book, appointment and
 * reservation mean one thing to it), so which passages are close is known in advance.
 */
import crypto from "node:crypto";
import http from "node:http";
import { Writable } from "node:stream";
import { expect } from "chai";
import { pino } from "pino";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  knowledgeEmbedder,
  type KnowledgeEmbedder,
} from "../core/intelligence/knowledge/knowledge-embedder.ts";
import { KnowledgeIndex } from "../core/intelligence/knowledge/knowledge-index.ts";
import { KnowledgeService } from "../core/intelligence/knowledge/knowledge-service.ts";
import type { KnowledgeHit } from "../core/intelligence/knowledge/knowledge-types.ts";
import { localChannel } from "../core/pubsub/channel.ts";
import type { SiteKnowledgeRow } from "../core/store/repos/site-knowledge-repo.ts";
import { startKnowledgeSite, type KnowledgeSite } from "./helpers/knowledge-site-server.ts";
import { EMBEDDINGS_PATH } from "./helpers/openai-embeddings.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

/** No word of it is on the site; to the stand-in, a reservation is a booking. */
const MEANING_QUESTION = "Reservations?";
const BOOKING = { path: "/faq", sectionId: "faq-online-booking" };

/** A question both rankings answer first with the implants page's materials. */
const QUESTION = "Do you offer zirconia implants if I have a metal allergy?";
const ANSWER = { path: "/services/implants", sectionId: "implant-materials" };

const where = (hits: KnowledgeHit[]) => hits.map((hit) => `${hit.url}#${hit.section_id}`);

for (const target of databaseTargets) {
  describe(`meaning search of a site's knowledge on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let openai: OpenAiStandin;
    let site: KnowledgeSite;
    let service: TestService;
    let embedder: KnowledgeEmbedder;
    let siteId: string;
    let row: SiteKnowledgeRow;
    /** The site's keyword index alone, as stored. */
    let keywords: KnowledgeIndex;
    /** A `sites:read` key of the site's workspace. */
    let readKey: string;
    /** The service's log lines. */
    const serviceLines: string[] = [];

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      openai = await startOpenAiStandin();
      site = await startKnowledgeSite();
      const logs = new Writable({
        write(chunk: Buffer, _encoding, done) {
          serviceLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
          done();
        },
      });
      service = await startTestService(
        database.url,
        {
          SITEVOICE_JOBS: "off",
          SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
          SITEVOICE_EMBEDDINGS: "openai",
          OPENAI_API_KEY: openai.apiKey,
          OPENAI_BASE_URL: openai.baseUrl,
          LOG_LEVEL: "info",
        },
        { logs },
      );
      embedder = knowledgeEmbedder(service)!;
      siteId = `km-${crypto.randomBytes(4).toString("hex")}`;
      const workspace = await service.workspace();
      readKey = await service.key(workspace, { scopes: ["sites:read"] });
      await service.sites.create(operatorPrincipal(workspace, "test"), {
        site_id: siteId,
        business_name: "Lindenhof Dental",
        business_description: "A dental practice in Freiburg",
        domain: site.domain,
        language: "en",
      });
      const crawled = await service.crawls.run((await service.store.crawls.active(siteId))!.id);
      expect(crawled?.status).to.equal("done");
      row = (await service.store.siteKnowledge.get(siteId))!;
      expect(row.vectors, "vectors stored").to.be.a("string");
      keywords = KnowledgeIndex.load(row.serialized);
    });
    beforeEach(() => {
      openai.behaviour = "mint";
    });
    after(async () => {
      await service?.stop();
      await site?.close();
      await openai?.close();
      await database?.drop();
    });

    /** Another instance on the same store; its log lines go to `lines`. */
    function otherInstance(
      options: {
        embedder?: KnowledgeEmbedder;
        meaningTimeoutMs?: number;
        cacheBytes?: number;
        lines?: string[];
      } = {},
    ) {
      const logs = new Writable({
        write(chunk: Buffer, _encoding, done) {
          options.lines?.push(...chunk.toString("utf8").split("\n").filter(Boolean));
          done();
        },
      });
      return new KnowledgeService({
        store: service.store,
        logger: pino({ level: "info" }, logs),
        cacheBytes: options.cacheBytes ?? 64 * 1024 * 1024,
        channel: localChannel(),
        embedder: options.embedder,
        meaningTimeoutMs: options.meaningTimeoutMs,
      });
    }

    const embeddingRequests = (from: number) =>
      openai.requests.slice(from).filter((r) => r.path === EMBEDDINGS_PATH);

    it("finds by meaning a passage whose words the keyword index misses", async () => {
      expect(keywords.search(MEANING_QUESTION, 5)).to.deep.equal([]);
      const hits = await service.knowledge.search(siteId, MEANING_QUESTION, 3);
      expect(where(hits)).to.include(`${site.origin}${BOOKING.path}#${BOOKING.sectionId}`);
    });

    it("sends the provider the question alone", async () => {
      const from = openai.requests.length;
      await service.knowledge.search(siteId, QUESTION, 3);
      expect(
        embeddingRequests(from).map((r) => (r.body as { input: unknown }).input),
      ).to.deep.equal([[QUESTION]]);
    });

    it("scores 1 a passage both rankings put first, the others below it, best first", async () => {
      const hits = await service.knowledge.search(siteId, QUESTION, 5);
      expect(hits).to.have.length(5);
      expect(hits[0]).to.include({
        url: `${site.origin}${ANSWER.path}`,
        section_id: ANSWER.sectionId,
        score: 1,
      });
      const scores = hits.map((hit) => hit.score);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      expect(scores.slice(1).every((score) => score > 0 && score < 1)).to.equal(true);
    });

    it("answers the same on another instance, which loads the stored vectors", async () => {
      const other = otherInstance({ embedder });
      expect(await other.search(siteId, MEANING_QUESTION, 3)).to.deep.equal(
        await service.knowledge.search(siteId, MEANING_QUESTION, 3),
      );
    });

    it("answers by keywords alone when the provider is slower than the timeout, logged without the question's words", async () => {
      openai.behaviour = "hang";
      const lines: string[] = [];
      const other = otherInstance({ embedder, meaningTimeoutMs: 100, lines });
      expect(await other.search(siteId, QUESTION, 3)).to.deep.equal(keywords.search(QUESTION, 3));
      const line = lines.find((l) => l.includes('"meaning search timed out'));
      expect(line, lines.join("\n")).to.be.a("string");
      expect(JSON.parse(line!)).to.include({
        site_id: siteId,
        query_chars: QUESTION.length,
        timeout_ms: 100,
      });
      expect(lines.filter((l) => /zirconia|allergy/i.test(l))).to.deep.equal([]);
    });

    it("answers by keywords alone when the provider fails, logged without the question's words", async () => {
      openai.behaviour = "fail";
      const lines: string[] = [];
      const other = otherInstance({ embedder, lines });
      expect(await other.search(siteId, QUESTION, 3)).to.deep.equal(keywords.search(QUESTION, 3));
      const line = lines.find((l) => l.includes('"meaning search failed'));
      expect(line, lines.join("\n")).to.be.a("string");
      expect(JSON.parse(line!)).to.include({ site_id: siteId, query_chars: QUESTION.length });
      expect(lines.filter((l) => /zirconia|allergy/i.test(l))).to.deep.equal([]);
    });

    it("answers by keywords alone, without a timeout, once the client has gone", async () => {
      openai.behaviour = "hang";
      const lines: string[] = [];
      const other = otherInstance({ embedder, lines });
      const gone = new AbortController();
      const asked = openai.nextRequest();
      const searching = other.search(siteId, QUESTION, 3, gone.signal);
      await asked;
      gone.abort(new Error("client closed the request"));
      expect(await searching).to.deep.equal(keywords.search(QUESTION, 3));
      expect(lines.filter((l) => l.includes("meaning search"))).to.deep.equal([]);
    });

    it("lets go of the provider's request when the API's client goes away", async () => {
      openai.behaviour = "hang";
      const asked = openai.nextRequest();
      const query = new URLSearchParams({ q: QUESTION, limit: "3" });
      const client = http.get(`${service.url}/v1/sites/${siteId}/knowledge?${query}`, {
        headers: { Authorization: `Bearer ${readKey}` },
      });
      client.on("error", () => {}); // destroyed below
      const sent = await asked;
      const lines = serviceLines.length;
      const released = openai.clientGone();
      client.destroy();
      expect(await released).to.equal(sent);
      // Had the search waited for its timeout instead, that wait would be logged by now.
      expect(serviceLines.slice(lines).filter((l) => l.includes("meaning search"))).to.deep.equal(
        [],
      );
    });

    it("counts the vectors in what an instance holds", async () => {
      const bound = row.serialized.length + row.vectors!.length;
      const tight = otherInstance({ embedder, cacheBytes: bound - 1 });
      await tight.search(siteId, QUESTION, 1);
      expect(tight.holds(siteId)).to.equal(false);
      const enough = otherInstance({ embedder, cacheBytes: bound });
      await enough.search(siteId, QUESTION, 1);
      expect(enough.holds(siteId)).to.equal(true);
    });

    it("neither loads nor counts the vectors with embeddings off", async () => {
      const other = otherInstance({ cacheBytes: row.serialized.length });
      await other.search(siteId, QUESTION, 1);
      expect(other.holds(siteId)).to.equal(true);
    });

    it("asks the provider nothing with embeddings off, though the site has vectors", async () => {
      const other = otherInstance();
      const from = openai.requests.length;
      expect(await other.search(siteId, MEANING_QUESTION, 3)).to.deep.equal([]);
      expect(await other.search(siteId, QUESTION, 3)).to.deep.equal(keywords.search(QUESTION, 3));
      expect(openai.requests.slice(from)).to.deep.equal([]);
    });
  });
}
