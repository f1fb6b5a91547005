/**
 * Reading jobs back: by id, queries with their filters (names, ids, search, data, state,
 * disabled), sort and pages, the counts and the overview; then removing, disabling and enabling
 * by the same filters. The cases follow agenda's own shared repository suite.
 */
import { expect } from "chai";
import type { JobParameters } from "agenda";
import { jobOf, type JobsSuite } from "./jobs-suite.ts";

export function queryCases(suite: JobsSuite): void {
  const repo = () => suite.repository;
  const save = (fields: Partial<JobParameters> = {}) => repo().saveJob(jobOf(fields), undefined);

  describe("reading", () => {
    beforeEach(async () => {
      await save({ name: "job-a", priority: 10, nextRunAt: new Date(Date.now() + 60_000) });
      await save({ name: "job-b", priority: 5, nextRunAt: new Date(Date.now() + 120_000) });
      await save({
        name: "job-a",
        priority: 15,
        nextRunAt: new Date(Date.now() + 180_000),
        data: { type: "alpha", tags: ["x", "y"] },
      });
    });

    it("answers null for an id that is not there", async () => {
      const gone = await save();
      await repo().removeJobs({ id: gone._id });
      expect(await repo().getJobById(String(gone._id))).to.equal(null);
    });

    it("queries all, by name, names, id, ids and a case-insensitive search", async () => {
      expect((await repo().queryJobs()).total).to.equal(3);
      expect((await repo().queryJobs({ name: "job-a" })).total).to.equal(2);
      expect((await repo().queryJobs({ names: ["job-a", "job-b"] })).total).to.equal(3);
      expect((await repo().queryJobs({ search: "JOB-" })).total).to.equal(3);
      expect((await repo().queryJobs({ search: "-B" })).total).to.equal(1);
      const [one, two] = (await repo().queryJobs({ name: "job-a" })).jobs;
      expect((await repo().queryJobs({ id: String(one?._id) })).jobs[0]?._id).to.equal(one?._id);
      const ids = [String(one?._id), String(two?._id)];
      expect((await repo().queryJobs({ ids })).total).to.equal(2);
    });

    it("queries by data it contains, as jsonb's @> does", async () => {
      expect((await repo().queryJobs({ data: { type: "alpha" } })).total).to.equal(1);
      expect((await repo().queryJobs({ data: { tags: ["y"] } })).total).to.equal(1);
      expect((await repo().queryJobs({ data: { type: "beta" } })).total).to.equal(0);
    });

    it("sorts, pages with skip and limit, and counts every match in total", async () => {
      const byPriority = await repo().queryJobs({ sort: { priority: "desc" } });
      expect(byPriority.jobs.map((j) => j.priority)).to.deep.equal([15, 10, 5]);
      const byNext = await repo().queryJobs({ sort: { nextRunAt: "asc" } });
      expect(byNext.jobs.map((j) => j.priority)).to.deep.equal([10, 5, 15]);
      const page = await repo().queryJobs({ sort: { nextRunAt: "asc" }, skip: 1, limit: 1 });
      expect(page.total).to.equal(3);
      expect(page.jobs.map((j) => j.priority)).to.deep.equal([5]);
      // By default the latest next run comes first.
      expect((await repo().queryJobs()).jobs.map((j) => j.priority)).to.deep.equal([15, 5, 10]);
    });

    it("filters by computed state and leaves out disabled jobs when asked", async () => {
      await save({ name: "paused", disabled: true });
      expect((await repo().queryJobs({ state: "scheduled" })).total).to.equal(3);
      expect((await repo().queryJobs({ state: "queued" })).total).to.equal(1);
      expect((await repo().queryJobs({ state: "paused" })).total).to.equal(1);
      expect((await repo().queryJobs({ includeDisabled: false })).total).to.equal(3);
      expect((await repo().queryJobs({ includeDisabled: true })).total).to.equal(4);
    });

    it("lists the distinct names in order, and counts the queue of due jobs", async () => {
      await save({ name: "due", nextRunAt: new Date(Date.now() - 1_000) });
      await save({ name: "due", nextRunAt: new Date(Date.now() - 60_000) });
      expect(await repo().getDistinctJobNames()).to.deep.equal(["due", "job-a", "job-b"]);
      expect(await repo().getQueueSize()).to.equal(2);
    });

    it("gives an overview of each name's jobs by state", async () => {
      await save({ name: "job-b", nextRunAt: null, lastFinishedAt: new Date() });
      const failed = await save({ name: "job-b" });
      await repo().saveJobState({ ...failed, nextRunAt: null, failedAt: new Date() }, undefined);
      await save({ name: "job-b", repeatInterval: "1 minute" });
      await save({ name: "job-b", disabled: true, nextRunAt: new Date(Date.now() + 60_000) });
      const overview = await repo().getJobsOverview();
      expect(overview.map((o) => o.name)).to.deep.equal(["job-a", "job-b"]);
      expect(overview[0]).to.deep.include({ total: 2, scheduled: 2 });
      expect(overview[1]).to.deep.include({
        total: 5,
        scheduled: 2,
        completed: 1,
        failed: 1,
        repeating: 1,
        paused: 1,
      });
    });
  });

  describe("removing, disabling and enabling", () => {
    it("removes by name, id, ids, all but some names, and data; nothing without criteria", async () => {
      const [a, b, c] = [
        await save({ name: "remove", data: { keep: false } }),
        await save({ name: "remove", data: { keep: true } }),
        await save({ name: "other" }),
      ];
      await save({ name: "third" });
      expect(await repo().removeJobs({})).to.equal(0);
      expect(await repo().removeJobs({ name: "remove", data: { keep: true } })).to.equal(1);
      expect(await repo().getJobById(String(b._id))).to.equal(null);
      expect(await repo().removeJobs({ ids: [a._id as string, c._id as string] })).to.equal(2);
      expect(await repo().removeJobs({ notNames: ["nothing"] })).to.equal(1);
      expect(await repo().removeJobs({ name: "remove" })).to.equal(0);
      expect((await repo().queryJobs()).total).to.equal(0);
    });

    it("disables and enables by name and data, counting each matching job", async () => {
      await save({ name: "toggle", data: { site: "a" } });
      await save({ name: "toggle", data: { site: "b" } });
      expect(await repo().disableJobs({ name: "toggle" })).to.equal(2);
      expect(await repo().disableJobs({ name: "toggle" })).to.equal(2); // already: still matched
      expect(await repo().enableJobs({ name: "toggle", data: { site: "a" } })).to.equal(1);
      const jobs = (await repo().queryJobs({ name: "toggle", sort: { name: "asc" } })).jobs;
      const disabled = jobs.map((j) => [(j.data as { site: string }).site, j.disabled]);
      expect(disabled.sort()).to.deep.equal([
        ["a", false],
        ["b", true],
      ]);
      expect(await repo().enableJobs({})).to.equal(0);
    });

    it("purges every job", async () => {
      await save();
      await save({ name: "other" });
      expect(await repo().purgeAllJobs()).to.equal(2);
    });
  });
}
