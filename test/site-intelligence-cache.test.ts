/**
 * The site-intelligence cache under a fake clock, on each database: a fresh row is served as it
 * is; a stale one is served at once while exactly one regeneration runs (across instances too,
 * by the row's lease); a refresh, another site version or a crawl's end make it stale; the prompt
 * lives 5 minutes and is rebuilt alone; a failed regeneration gives its lease back. Introspections
 * are counted at the records backend; "at once" means while that backend holds every answer.
 */
import { expect } from "chai";
import { isServiceError } from "../core/errors.ts";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { SiteIntelligenceService } from "../core/intelligence/site-intelligence-service.ts";
import {
  intelligenceHarness,
  MINUTE,
  pagesOf,
  T0,
  rejection,
  type Harness,
} from "./helpers/intelligence-harness.ts";
import { databaseTargets, missing } from "./helpers/test-databases.ts";
import { forgetCrawls } from "./helpers/crawl-rows.ts";

for (const target of databaseTargets) {
  describe(`site intelligence cache on ${target.label}`, function () {
    this.timeout(30_000);
    let h: Harness;
    let site: string;
    let a: SiteIntelligenceService;

    const titles = async (service: SiteIntelligenceService) =>
      (await service.answer(await h.target(site))).site?.pages.map((p) => p.title);

    before(async function () {
      const made = await intelligenceHarness(target);
      if (made === undefined) missing(this, target.label);
      h = made;
    });
    beforeEach(async () => {
      h.clock.now = T0;
      site = await h.newSite();
      a = h.instance("instance-a");
    });
    after(async () => {
      await h?.close();
    });

    it("is 503 crawler_unavailable before the first crawl, queueing one crawl only", async () => {
      await forgetCrawls(h.service.store, site);
      for (let i = 0; i < 2; i++) {
        const error = await rejection(a.answer(await h.target(site)));
        expect(isServiceError(error) && error.code).to.equal("crawler_unavailable");
        expect(isServiceError(error) && error.details).to.deep.equal({ retry_after_seconds: 30 });
      }
      expect(h.firstCrawls).to.include(site);
      expect(h.firstCrawls.filter((id) => id === site)).to.have.length(1);
      expect(await h.service.store.siteIntelligence.get(site)).to.equal(undefined);
    });

    it("serves a fresh row as it is: no regeneration within 60 minutes", async () => {
      await h.crawl(site, pagesOf("Bread"));
      const before = h.introspections();
      const first = await a.answer(await h.target(site));
      expect(h.introspections()).to.equal(before + 1);
      h.clock.now = T0 + 59 * MINUTE;
      await Promise.all([a.answer(await h.target(site)), a.answer(await h.target(site))]);
      await a.idle();
      expect(h.introspections()).to.equal(before + 1);
      expect((await a.answer(await h.target(site))).generatedAt).to.equal(first.generatedAt);
      expect(first.generatedAt).to.equal(new Date(T0).toISOString());
    });

    it("serves a stale row at once and regenerates it once, however many read it", async () => {
      await h.crawl(site, pagesOf("Bread"));
      await a.answer(await h.target(site));
      h.clock.now = T0 + 61 * MINUTE;
      await h.crawl(site, pagesOf("Bread", "Cakes"));
      const before = h.introspections();
      const release = h.records.hold();
      const answers = await Promise.all(
        Array.from({ length: 5 }, async () => a.answer(await h.target(site))),
      );
      // Answered while the backend still holds the regeneration's introspection.
      expect(answers.map((x) => x.site?.pages.map((p) => p.title))).to.deep.equal(
        answers.map(() => ["Bread"]),
      );
      expect(answers.map((x) => x.generatedAt)).to.include(new Date(T0).toISOString());
      release();
      await a.idle();
      expect(h.introspections()).to.equal(before + 1);
      expect(await titles(a)).to.deep.equal(["Bread", "Cakes"]);
      const row = await h.service.store.siteIntelligence.get(site);
      expect(row).to.include({ generated_at: T0 + 61 * MINUTE, regen_owner: null });
    });

    it("regenerates after a refresh (invalidate), once", async () => {
      await h.crawl(site, pagesOf("Bread"));
      await a.answer(await h.target(site));
      h.clock.now = T0 + 10 * MINUTE;
      await h.crawl(site, pagesOf("Cakes"));
      expect(await titles(a)).to.deep.equal(["Bread"]); // fresh: the new crawl is not read yet
      await a.idle();
      await a.invalidate(site);
      const before = h.introspections();
      expect(await titles(a)).to.deep.equal(["Bread"]); // stale, served at once
      await a.idle();
      expect(h.introspections()).to.equal(before + 1);
      expect(await titles(a)).to.deep.equal(["Cakes"]);
      await a.idle();
      expect(h.introspections()).to.equal(before + 1);
      expect((await h.service.store.siteIntelligence.get(site))?.invalidated_at).to.equal(null);
    });

    it("keeps the prompt 5 minutes, then rebuilds the prompt alone", async () => {
      await h.crawl(site, pagesOf("Bread"));
      const first = await a.answer(await h.target(site));
      expect(first.personality_prompt).to.include("13:05");
      const before = h.introspections();
      h.clock.now = T0 + 4 * MINUTE;
      expect((await a.answer(await h.target(site))).personality_prompt).to.equal(
        first.personality_prompt,
      );
      await a.idle();
      expect(await h.service.store.siteIntelligence.get(site)).to.include({
        prompt_generated_at: T0,
      });
      h.clock.now = T0 + 6 * MINUTE;
      const stale = await a.answer(await h.target(site));
      expect(stale.personality_prompt).to.equal(first.personality_prompt);
      await a.idle();
      const next = await a.answer(await h.target(site));
      expect(next.personality_prompt).to.include("13:11").and.include("- Bread (/bread)");
      expect(next.generatedAt).to.equal(first.generatedAt);
      expect(h.introspections()).to.equal(before);
      expect(await h.service.store.siteIntelligence.get(site)).to.include({
        generated_at: T0,
        prompt_generated_at: T0 + 6 * MINUTE,
      });
    });

    it("regenerates for another site version, and hides a field the new version no longer allows at once", async () => {
      await h.crawl(site, pagesOf("Bread"));
      const first = await a.answer(await h.target(site));
      expect(first.data?.collections[0]?.fields.map((f) => f.name)).to.deep.equal([
        "name",
        "price",
      ]);
      const principal = operatorPrincipal((await h.target(site)).workspaceId, "test");
      await h.service.sites.patch(principal, site, {
        business_description: "Bread and pastries",
        adapter: {
          type: "rest",
          config: { baseUrl: h.records.origin, queryMode: "querystring" },
          collections: {
            items: { source: "/items", searchable_fields: ["name"], display_fields: ["name"] },
          },
        },
      });
      const changed = await h.target(site);
      const before = h.introspections();
      const stale = await a.answer(changed);
      expect(stale.generatedAt).to.equal(first.generatedAt);
      expect(stale.data?.collections[0]?.fields.map((f) => f.name)).to.deep.equal(["name"]);
      await a.idle();
      expect(h.introspections()).to.equal(before + 1);
      const row = await h.service.store.siteIntelligence.get(site);
      expect(row?.site_version).to.equal(changed.version);
      expect(row?.prompt).to.include("Bread and pastries");
    });

    it("rebuilds at once when a crawl ends (crawled), with its pages", async () => {
      await h.crawl(site, pagesOf("Bread"));
      await a.answer(await h.target(site));
      h.clock.now = T0 + MINUTE;
      await h.crawl(site, pagesOf("Bread", "Rolls"));
      await a.crawled(site);
      const answer = await a.answer(await h.target(site));
      expect(answer.site?.pages.map((p) => p.title)).to.deep.equal(["Bread", "Rolls"]);
      expect(answer.generatedAt).to.equal(new Date(T0 + MINUTE).toISOString());
    });

    it("gives a failed regeneration's lease back, logs it at warn, and tries again at the next read", async () => {
      let failing = false;
      const templates = {
        industries: h.service.templates.industries,
        render: (industry: string, data: never) => {
          if (failing) throw new Error("template helper broke");
          return h.service.templates.render(industry, data);
        },
      };
      const b = h.instance("instance-b", { templates });
      await h.crawl(site, pagesOf("Bread"));
      await b.answer(await h.target(site));
      h.clock.now = T0 + 61 * MINUTE;
      failing = true;
      h.warnings.length = 0;
      await b.answer(await h.target(site));
      await b.idle();
      expect(h.warnings.map((w) => [w.msg, w.site_id])).to.deep.equal([
        ["site intelligence regeneration failed", site],
      ]);
      expect(await h.service.store.siteIntelligence.get(site)).to.include({
        generated_at: T0,
        regen_owner: null,
        regen_until: null,
      });
      failing = false;
      await b.answer(await h.target(site));
      await b.idle();
      expect(await h.service.store.siteIntelligence.get(site)).to.include({
        generated_at: T0 + 61 * MINUTE,
      });
    });

    it("marks a collection whose introspection outlives its deadline, and still answers", async () => {
      const quick = h.instance("instance-quick", { introspectionTimeoutMs: 50 });
      await h.crawl(site, pagesOf("Bread"));
      const release = h.records.hold();
      try {
        const answer = await quick.answer(await h.target(site));
        expect(answer.data?.collections).to.deep.equal([
          {
            name: "items",
            source: "/items",
            fields: [],
            error: "introspection timed out after 0.05 s",
          },
        ]);
        expect(answer.site?.pages.map((p) => p.title)).to.deep.equal(["Bread"]);
      } finally {
        release();
      }
    });

    it("never writes a result over a later one, and keeps an invalidation later than the result", async () => {
      await h.crawl(site, pagesOf("Bread"));
      await a.answer(await h.target(site));
      const repo = h.service.store.siteIntelligence;
      const row = (await repo.get(site))!;
      const later = { ...row, generated_at: T0 + 10 * MINUTE, prompt: "later" };
      expect(await repo.put(later)).to.equal(true);
      // A regeneration begun before (say, before a crawl ended) cannot put its result back.
      expect(await repo.put({ ...row, generated_at: T0 + 5 * MINUTE, prompt: "older" })).to.equal(
        false,
      );
      expect(await repo.get(site)).to.include({ generated_at: T0 + 10 * MINUTE, prompt: "later" });
      await repo.invalidate(site, T0 + 20 * MINUTE);
      await repo.put({ ...row, generated_at: T0 + 15 * MINUTE });
      expect(await repo.get(site)).to.include({ invalidated_at: T0 + 20 * MINUTE });
      await repo.put({ ...row, generated_at: T0 + 20 * MINUTE });
      expect(await repo.get(site)).to.include({ invalidated_at: null });
    });

    describe("two instances on one store", () => {
      for (const held of [true, false]) {
        it(`regenerate a stale row once between them${held ? " (the first still running)" : ""}`, async () => {
          const b = h.instance("instance-b");
          await h.crawl(site, pagesOf("Bread"));
          await a.answer(await h.target(site));
          h.clock.now = T0 + 61 * MINUTE;
          await h.crawl(site, pagesOf("Cakes"));
          const before = h.introspections();
          const release = held ? h.records.hold() : () => undefined;
          const reads = await Promise.all(
            [a, b, a, b, a, b].map(async (service) => service.answer(await h.target(site))),
          );
          expect(reads.every((r) => r.site?.pages[0]?.title === "Bread")).to.equal(true);
          release();
          await Promise.all([a.idle(), b.idle()]);
          expect(h.introspections()).to.equal(before + 1);
          expect(await titles(b)).to.deep.equal(["Cakes"]);
          expect(await titles(a)).to.deep.equal(["Cakes"]);
        });
      }

      it("regenerate once when one takes the lease only after the other wrote the row", async () => {
        // B's lease waits for the gate: B read the row stale, A regenerates meanwhile.
        let open!: () => void;
        const store = h.storeLeasingAfter(new Promise<void>((resolve) => (open = resolve)));
        const b = h.instance("instance-b", { store });
        await h.crawl(site, pagesOf("Bread"));
        await a.answer(await h.target(site));
        h.clock.now = T0 + 61 * MINUTE;
        await h.crawl(site, pagesOf("Cakes"));
        const before = h.introspections();
        expect((await b.answer(await h.target(site))).site?.pages[0]?.title).to.equal("Bread");
        await a.answer(await h.target(site));
        await a.idle();
        expect(h.introspections()).to.equal(before + 1);
        open();
        await b.idle();
        expect(h.introspections()).to.equal(before + 1);
        expect(await titles(b)).to.deep.equal(["Cakes"]);
      });
    });
  });
}
