/**
 * Crawls as jobs, on each of the three databases, with the job runner on: a site created through
 * the API is crawled by its job with no call from the test; the nightly jobs are planned one a
 * site, at a minute of its own night in its time zone, moved when the zone changes and removed
 * with the site; a crawl whose instance died (its lease ran out) is run again by the dispatch
 * job's new job. (A crawl given back at a stop is in crawls-api.test.ts, where no job runs.)
 */
import { expect } from "chai";
import request from "supertest";
import { NIGHTLY_CRAWL_JOB, nightlySchedule } from "../core/intelligence/crawl-nightly.ts";
import { CRAWL_UNSTARTED_MS } from "../core/intelligence/crawl-service.ts";
import { newCrawlRow } from "../core/store/repos/crawls-repo.ts";
import { startSiteServer, type SiteServer } from "./helpers/crawl-site-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

/** Polls `check` every 100 ms until it gives a value, for up to 30 s (jobs poll every 200 ms). */
async function eventually<T>(check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("nightly crawl schedule", () => {
  it("falls in the site's night, 01:00 to 04:59 in its zone, spread by site", () => {
    const minutes = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const schedule = nightlySchedule(`site-${i}`, "Asia/Kolkata");
      if (!("cron" in schedule)) throw new Error("not a cron schedule");
      expect(schedule.timeZone).to.equal("Asia/Kolkata");
      const [minute, hour, ...rest] = schedule.cron.split(" ").map(String);
      expect(rest).to.deep.equal(["*", "*", "*"]);
      const at = Number(hour) * 60 + Number(minute);
      expect(at).to.be.within(60, 299);
      minutes.add(at);
    }
    // 200 sites over 240 minutes: most get a minute of their own.
    expect(minutes.size).to.be.above(120);
    expect(nightlySchedule("site-1", "Asia/Kolkata")).to.deep.equal(
      nightlySchedule("site-1", "Asia/Kolkata"),
    );
    expect(nightlySchedule("site-1", "Not/AZone")).to.have.property("timeZone", "UTC");
  });
});

for (const target of databaseTargets) {
  describe(`crawl jobs on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let fixture: SiteServer;
    let key: string;
    let workspace: string;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      fixture = await startSiteServer({ sitemaps: true });
      service = await startTestService(database.url, {
        SITEVOICE_OUTBOUND_ALLOW: `127.0.0.1:${fixture.port}`,
        SITEVOICE_JOBS_POLL_MS: "200",
      });
    });
    beforeEach(async () => {
      workspace = await service.workspace();
      key = await service.key(workspace);
    });
    after(async () => {
      await service?.stop();
      await fixture?.close();
      await database?.drop();
    });

    const api = (method: "get" | "post" | "patch" | "delete", path: string) =>
      request(service.url)[method](path).set("Authorization", `Bearer ${key}`);

    async function createSite(timezone = "Europe/Rome", domain = fixture.domain): Promise<string> {
      const created = await api("post", "/v1/sites").send({
        business_name: "Luigi's Trattoria",
        business_description: "Fresh pasta.",
        domain,
        timezone,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body.data.site_id as string;
    }

    it("crawls a new site by its job, with nothing asked", async () => {
      const siteId = await createSite();
      const done = await eventually(async () => {
        const [crawl] = (await api("get", `/v1/sites/${siteId}/crawls`)).body.data;
        return crawl.status === "done" ? crawl : undefined;
      });
      expect(done).to.include({ trigger: "created", pages: 5 });
    });

    it("plans one nightly job a site in its zone, moves it with the zone, drops it with the site", async () => {
      const rome = await createSite("Europe/Rome");
      const kolkata = await createSite("Asia/Kolkata", "kolkata.invalid");
      await service.crawls.planNightly();
      const planned = async () =>
        new Map(
          (await service.jobs.repeating(NIGHTLY_CRAWL_JOB)).map((job) => [
            job.data.site_id,
            job.schedule,
          ]),
        );
      let jobs = await planned();
      expect(jobs.get(rome)).to.deep.equal(nightlySchedule(rome, "Europe/Rome"));
      expect(jobs.get(kolkata)).to.deep.equal(nightlySchedule(kolkata, "Asia/Kolkata"));
      const count = jobs.size;
      // Planning again changes nothing.
      await service.crawls.planNightly();
      expect((await service.jobs.repeating(NIGHTLY_CRAWL_JOB)).length).to.equal(count);

      expect(
        (await api("patch", `/v1/sites/${rome}`).send({ timezone: "America/Chicago" })).status,
      ).to.equal(200);
      expect((await api("delete", `/v1/sites/${kolkata}`)).status).to.equal(200);
      await service.crawls.planNightly();
      jobs = await planned();
      expect(jobs.get(rome)).to.deep.equal(nightlySchedule(rome, "America/Chicago"));
      expect(jobs.has(kolkata)).to.equal(false);
      expect(jobs.size).to.equal(count - 1);
    });

    it("queues a nightly crawl by the nightly job's work, and ends the job of a deleted site", async () => {
      const siteId = await createSite();
      await eventually(async () =>
        (await service.store.crawls.active(siteId)) ? undefined : true,
      );
      await service.crawls.nightly(siteId);
      const [crawl] = (await api("get", `/v1/sites/${siteId}/crawls`)).body.data;
      expect(crawl.trigger).to.equal("nightly");

      await service.crawls.planNightly();
      await api("delete", `/v1/sites/${siteId}`).expect(200);
      await service.crawls.nightly(siteId);
      const left = await service.jobs.repeating(NIGHTLY_CRAWL_JOB);
      expect(left.map((job) => job.data.site_id)).not.to.include(siteId);
    });

    it("runs a crawl whose job's instance died before starting it, a minute after its dispatch", async () => {
      const siteId = await createSite();
      await eventually(async () => {
        const [crawl] = (await api("get", `/v1/sites/${siteId}/crawls`)).body.data;
        return crawl.status === "done" ? crawl : undefined;
      });
      // Dispatched 61 s ago to a job that is gone with its instance (queued straight into the
      // store, so no job was ever made: the dispatch job is all that can run it).
      const now = Date.now();
      const { crawl } = await service.store.crawls.queue(newCrawlRow(siteId, "refresh", now));
      await service.store.crawls.markDispatched(crawl.id, now - CRAWL_UNSTARTED_MS - 1_000);
      expect((await service.crawls.dispatch()) >= 1).to.equal(true);
      const done = await eventually(async () => {
        const row = await service.store.crawls.get(crawl.id);
        return row?.status === "done" ? row : undefined;
      });
      expect(done.attempts).to.equal(1);
    });

    it("runs again a crawl whose instance died holding it, once its lease ran out", async () => {
      const siteId = await createSite();
      const created = await eventually(async () => {
        const [crawl] = (await api("get", `/v1/sites/${siteId}/crawls`)).body.data;
        return crawl.status === "done" ? crawl : undefined;
      });
      // A dead instance's hold, written as it leaves it: running, its lease over, no job left
      // for it (queued straight into the store, so nothing made one).
      const now = Date.now();
      const { crawl } = await service.store.crawls.queue(newCrawlRow(siteId, "refresh", now));
      const crawlId = crawl.id;
      expect(crawlId).not.to.equal(created.id);
      const taken = await service.store.crawls.claim(crawlId, "dead:1", now, now - 1, "x");
      expect(taken).to.include({ status: "running", lease_owner: "dead:1", attempts: 1 });
      expect((await service.crawls.dispatch()) >= 1).to.equal(true);
      const done = await eventually(async () => {
        const crawl = await service.store.crawls.get(crawlId);
        return crawl?.status === "done" ? crawl : undefined;
      });
      expect(done.attempts).to.equal(2);
      expect(done.page_count).to.equal(5);
    });
  });
}
