/**
 * One ranking whichever store runs: the knowledge fixture site crawled by the service on each
 * of the three databases, its index then loaded from the store by another instance (as one that
 * did not run the crawl would), and every question of the retrieval evaluation
 * (bench/knowledge/questions.json) asked of it. Each database's top 3 (page, section and score)
 * must be those of the index built in memory from the same pages, so every store gives the
 * same answers as every other.
 */
import crypto from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { pino } from "pino";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { KnowledgeIndex } from "../core/intelligence/knowledge/knowledge-index.ts";
import { KnowledgeService } from "../core/intelligence/knowledge/knowledge-service.ts";
import type { KnowledgeHit } from "../core/intelligence/knowledge/knowledge-types.ts";
import { extractContent } from "../core/intelligence/knowledge/page-content.ts";
import { toPassages } from "../core/intelligence/knowledge/passages.ts";
import { localChannel } from "../core/pubsub/channel.ts";
import type { EvaluationQuestion } from "../bench/knowledge/evaluate.ts";
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

const QUESTIONS = JSON.parse(
  readFileSync(new URL("../bench/knowledge/questions.json", import.meta.url), "utf8"),
) as EvaluationQuestion[];
const SITE_LANGUAGE = "en";
/** The fixture's pages a crawl reads (robots.txt keeps it out of /staff/). */
const PAGES = KNOWLEDGE_SITE_PAGES.filter((path) => !path.startsWith("/staff/"));

/** A question's top 3 as compared: each hit's passage and score. */
const top3 = (hits: KnowledgeHit[]) =>
  hits.slice(0, 3).map((hit) => `${hit.url}#${hit.section_id ?? ""} ${hit.score}`);

describe("the same top 3 for every question on every database", function () {
  this.timeout(120_000);
  let site: KnowledgeSite;
  /** Question → its top 3 from the index built in memory from the pages as served. */
  let expected: Map<string, string[]>;

  before(async () => {
    site = await startKnowledgeSite({ etag: true, lastModified: true });
    const passages = [];
    for (const path of PAGES) {
      const url = `${site.origin}${path}`;
      passages.push(...toPassages(extractContent(await (await fetch(url)).text(), url)));
    }
    const index = KnowledgeIndex.build(passages, SITE_LANGUAGE);
    expected = new Map(QUESTIONS.map((q) => [q.question, top3(index.search(q.question, 3))]));
  });
  after(() => site?.close());

  it("has questions whose top 3 tell rankings apart", () => {
    const answered = [...expected.values()].filter((hits) => hits.length === 3);
    expect(QUESTIONS).to.have.length.of.at.least(40);
    expect(answered.length).to.be.at.least(QUESTIONS.length * 0.9);
  });

  for (const target of databaseTargets) {
    describe(target.label, () => {
      let database: TestDatabase | undefined;
      let service: TestService;

      before(async function () {
        database = await createTestDatabase(target);
        if (database === undefined) missing(this, target.label);
        service = await startTestService(database.url, {
          SITEVOICE_JOBS: "off",
          SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
        });
      });
      after(async () => {
        await service?.stop();
        await database?.drop();
      });

      it("answers every question with the in-memory index's top 3, loaded from the store", async () => {
        const workspace = await service.workspace();
        const siteId = `kp-${crypto.randomBytes(4).toString("hex")}`;
        await service.sites.create(operatorPrincipal(workspace, "test"), {
          site_id: siteId,
          business_name: "Lindenhof Dental",
          business_description: "A dental practice.",
          domain: site.domain,
          language: SITE_LANGUAGE,
        });
        const queued =
          (await service.store.crawls.active(siteId)) ??
          (await service.crawls.queue(siteId, "refresh"));
        const ended = await service.crawls.run(queued.id);
        expect(ended?.status).to.equal("done");

        // Another instance: the index it searches is the one read back from this store.
        const other = new KnowledgeService({
          store: service.store,
          logger: pino({ level: "silent" }),
          cacheBytes: 64 * 1024 * 1024,
          channel: localChannel(),
        });
        const answers = new Map<string, string[]>();
        for (const { question } of QUESTIONS) {
          answers.set(question, top3(await other.search(siteId, question, 3)));
        }
        expect(answers).to.deep.equal(expected);
      });
    });
  }
});
