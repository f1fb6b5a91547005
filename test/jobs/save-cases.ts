/**
 * Saving jobs, as agenda calls saveJob and saveJobState: new (with an id), by id, `single` (one
 * row per name), `unique` (with insertOnly and debounce), everything read back, times to the
 * millisecond. The cases follow agenda's own shared repository suite, with what the PostgreSQL
 * backend does beyond it.
 */
import { expect } from "chai";
import type { JobParameters } from "agenda";
import { jobOf, type JobsSuite } from "./jobs-suite.ts";

/** A time with odd milliseconds, to see them kept. */
const at = (iso: string) => new Date(iso);

export function saveCases(suite: JobsSuite): void {
  const repo = () => suite.repository;
  const save = (fields: Partial<JobParameters> = {}) => repo().saveJob(jobOf(fields), undefined);

  describe("saving", () => {
    it("saves a new job with an id and reads every field back, times to the millisecond", async () => {
      const saved = await save({
        name: "full",
        priority: 10,
        nextRunAt: at("2026-03-08T06:59:59.123Z"),
        data: { site: "luigis", nested: { list: [1, "two", null] } },
        repeatInterval: "0 9 * * *",
        repeatTimezone: "America/New_York",
        startDate: at("2026-03-01T00:00:00.001Z"),
        endDate: at("2026-12-31T23:59:59.999Z"),
        skipDays: [0, 6],
      });
      expect(saved._id).to.be.a("string");
      const read = await repo().getJobById(String(saved._id));
      expect(read).to.deep.include({
        _id: saved._id,
        name: "full",
        priority: 10,
        type: "normal",
        data: { site: "luigis", nested: { list: [1, "two", null] } },
        repeatInterval: "0 9 * * *",
        repeatTimezone: "America/New_York",
        skipDays: [0, 6],
        disabled: false,
      });
      expect(read?.nextRunAt?.toISOString()).to.equal("2026-03-08T06:59:59.123Z");
      expect(read?.startDate?.toISOString()).to.equal("2026-03-01T00:00:00.001Z");
      expect(read?.endDate?.toISOString()).to.equal("2026-12-31T23:59:59.999Z");
      expect(read?.lockedAt == null).to.equal(true);
    });

    it("keeps the times saveJobState writes to the millisecond", async () => {
      const saved = await save({ name: "state" });
      await repo().saveJobState(
        {
          ...saved,
          lockedAt: at("2026-11-23T10:00:00.001Z"),
          lastRunAt: at("2026-11-23T10:00:00.002Z"),
          lastFinishedAt: at("2026-11-23T10:00:00.999Z"),
          failedAt: at("2026-11-23T10:00:00.998Z"),
          nextRunAt: at("2026-11-23T10:01:00.007Z"),
          progress: 50,
          failCount: 1,
          failReason: "Test error",
        },
        undefined,
      );
      const read = await repo().getJobById(String(saved._id));
      expect(read?.lockedAt?.toISOString()).to.equal("2026-11-23T10:00:00.001Z");
      expect(read?.lastRunAt?.toISOString()).to.equal("2026-11-23T10:00:00.002Z");
      expect(read?.lastFinishedAt?.toISOString()).to.equal("2026-11-23T10:00:00.999Z");
      expect(read?.failedAt?.toISOString()).to.equal("2026-11-23T10:00:00.998Z");
      expect(read?.nextRunAt?.toISOString()).to.equal("2026-11-23T10:01:00.007Z");
      expect(read).to.deep.include({ progress: 50, failCount: 1, failReason: "Test error" });
    });

    it("refuses saveJobState for a job that is gone", async () => {
      const saved = await save();
      await repo().removeJobs({ id: saved._id });
      let refused: unknown;
      await repo()
        .saveJobState(saved, undefined)
        .catch((e: unknown) => (refused = e));
      expect(String(refused)).to.match(/cannot be updated/);
    });

    it("updates a job by id, and hands a removed one back unchanged", async () => {
      const saved = await save({ priority: 5, data: { version: 1 } });
      const updated = await repo().saveJob({ ...saved, priority: 20, data: { version: 2 } }, {});
      expect(updated).to.deep.include({ _id: saved._id, priority: 20, data: { version: 2 } });
      await repo().removeJobs({ id: saved._id });
      const gone = { ...saved, priority: 30 };
      expect(await repo().saveJob(gone, undefined)).to.equal(gone);
    });

    it("keeps one row per name for single jobs, updated in place", async () => {
      const first = await save({ name: "single", type: "single", data: { run: 1 } });
      const second = await save({
        name: "single",
        type: "single",
        priority: 10,
        nextRunAt: new Date(Date.now() + 120_000),
        data: { run: 2 },
      });
      expect(second).to.deep.include({ _id: first._id, priority: 10, data: { run: 2 } });
      expect((await repo().queryJobs({ name: "single" })).total).to.equal(1);
    });

    it("keeps a single job's stored next run when the new one is already due", async () => {
      const later = at("2099-01-01T00:00:00.042Z");
      await save({ name: "schedule", type: "single", nextRunAt: later });
      const due = await save({ name: "schedule", type: "single", nextRunAt: new Date() });
      expect(due.nextRunAt?.toISOString()).to.equal(later.toISOString());
      const moved = new Date(Date.now() + 60_000);
      const replaced = await save({ name: "schedule", type: "single", nextRunAt: moved });
      expect(replaced.nextRunAt?.getTime()).to.equal(moved.getTime());
    });

    it("upserts on a unique key over a data field; insertOnly leaves the existing job", async () => {
      const unique = { "data.userId": 7 };
      const first = await save({ name: "mail", data: { userId: 7, n: 1 }, unique });
      await save({ name: "mail", data: { userId: 8, n: 1 }, unique: { "data.userId": 8 } });
      const second = await save({ name: "mail", data: { userId: 7, n: 2 }, unique });
      expect(second).to.deep.include({ _id: first._id, data: { userId: 7, n: 2 } });
      const kept = await save({
        name: "mail",
        data: { userId: 7, n: 3 },
        unique,
        uniqueOpts: { insertOnly: true },
      });
      expect(kept.data).to.deep.equal({ userId: 7, n: 2 });
      expect((await repo().queryJobs({ name: "mail" })).total).to.equal(2);
    });

    it("matches a unique key on a column, and refuses a column it does not know", async () => {
      const first = await save({ name: "prio", priority: 3, unique: { priority: 3 } });
      const again = await save({
        name: "prio",
        priority: 3,
        data: { x: 1 },
        unique: { priority: 3 },
      });
      expect(again._id).to.equal(first._id);
      let refused: unknown;
      await save({ unique: { "name; drop table jobs": 1 } }).catch((e: unknown) => (refused = e));
      expect(String(refused)).to.match(/Invalid unique constraint field/);
    });

    it("debounces on a unique key: each save moves the run to after the quiet period", async () => {
      const unique = { "data.key": "k" };
      const uniqueOpts = { debounce: { delay: 60_000, strategy: "trailing" as const } };
      const before = Date.now();
      const first = await save({ name: "debounced", data: { key: "k" }, unique, uniqueOpts });
      expect(first.nextRunAt?.getTime()).to.be.at.least(before + 60_000);
      const second = await save({
        name: "debounced",
        data: { key: "k", n: 2 },
        unique,
        uniqueOpts,
      });
      expect(second._id).to.equal(first._id);
      expect(second.nextRunAt?.getTime()).to.be.at.least(first.nextRunAt?.getTime() ?? 0);
      expect(second.debounceStartedAt?.getTime()).to.equal(first.debounceStartedAt?.getTime());
    });

    it("keeps the disabled flag", async () => {
      const saved = await save({ disabled: true });
      expect(saved.disabled).to.equal(true);
      expect((await repo().getJobById(String(saved._id)))?.disabled).to.equal(true);
    });
  });
}
