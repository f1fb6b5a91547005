/**
 * A crawl whose knowledge cannot be stored (the database refuses the write: an index larger than
 * MariaDB's max_allowed_packet, a lost connection) still ends: its end is recorded without the
 * knowledge, nothing of the knowledge is half-written (its pages and index as before the crawl),
 * the log says why, and the next crawl stores it all. The refusal is made by the site knowledge
 * repository's `put` throwing, as the driver's error would, on each of the three databases.
 */
import crypto from "node:crypto";
import { Writable } from "node:stream";
import { expect } from "chai";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { SiteKnowledgeRepo } from "../core/store/repos/site-knowledge-repo.ts";
import { startKnowledgeSite, type KnowledgeSite } from "./helpers/knowledge-site-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const QUESTION = "Do you offer zirconia implants if I have a metal allergy?";

for (const target of databaseTargets) {
  describe(`a crawl whose knowledge the store refuses, on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let site: KnowledgeSite;
    const logs: { msg: string; site_id?: string; err?: { message?: string } }[] = [];
    const put = Object.getOwnPropertyDescriptor(SiteKnowledgeRepo.prototype, "put")!;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      site = await startKnowledgeSite({ etag: true });
      const lines = new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split("\n"))
            if (line !== "") logs.push(JSON.parse(line));
          done();
        },
      });
      service = await startTestService(
        database.url,
        { SITEVOICE_JOBS: "off", SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true", LOG_LEVEL: "info" },
        { logs: lines },
      );
    });
    afterEach(() => Object.defineProperty(SiteKnowledgeRepo.prototype, "put", put));
    after(async () => {
      await service?.stop();
      await site?.close();
      await database?.drop();
    });

    async function crawl(siteId: string) {
      const queued =
        (await service.store.crawls.active(siteId)) ??
        (await service.crawls.queue(siteId, "refresh"));
      return service.crawls.run(queued.id);
    }

    it("records the crawl's end without it, writes none of it, and stores it all next time", async () => {
      const workspace = await service.workspace();
      const siteId = `kf-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspace, "test"), {
        site_id: siteId,
        business_name: "Lindenhof Dental",
        business_description: "A dental practice.",
        domain: site.domain,
        language: "en",
      });
      SiteKnowledgeRepo.prototype.put = () =>
        Promise.reject(new Error("Got a packet bigger than 'max_allowed_packet' bytes"));

      const refused = await crawl(siteId);
      expect(refused?.status).to.equal("done");
      expect(await service.store.crawls.active(siteId)).to.equal(undefined);
      expect(await service.store.siteKnowledge.knownPages(siteId)).to.deep.equal([]);
      expect(await service.store.siteKnowledge.get(siteId)).to.equal(undefined);
      expect(await service.knowledge.search(siteId, QUESTION, 3)).to.deep.equal([]);
      const warning = logs.find((line) => line.site_id === siteId && /not stored/.test(line.msg));
      expect(warning?.err?.message).to.include("max_allowed_packet");

      Object.defineProperty(SiteKnowledgeRepo.prototype, "put", put);
      const stored = await crawl(siteId);
      expect(stored?.status).to.equal("done");
      expect(stored?.pages_changed).to.equal(stored?.pages_fetched);
      const [hit] = await service.knowledge.search(siteId, QUESTION, 3);
      expect(hit?.section_id).to.equal("implant-materials");
    });
  });
}
