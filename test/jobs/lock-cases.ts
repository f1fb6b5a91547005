/**
 * Locks, as agenda's processor takes them: the next due job of a name (earliest first, then the
 * highest priority; not disabled, not locked, not beyond the next scan), a lock older than the
 * lock lifetime taken over, lockJob's conditions, unlocking. And the race: two repositories, each
 * on its own connections, asking for the same job 1,000 times; exactly one wins each time.
 */
import { expect } from "chai";
import type { JobParameters, JobRepository } from "agenda";
import { jobOf, type JobsSuite } from "./jobs-suite.ts";

const MINUTE = 60_000;

/** agenda's arguments for getNextJobToRun: scan 5 s ahead, locks older than 10 minutes stale. */
function next(repo: JobRepository, name: string, lifetimeMs = 10 * MINUTE, by?: string) {
  const now = new Date();
  return repo.getNextJobToRun(
    name,
    new Date(now.getTime() + 5_000),
    new Date(now.getTime() - lifetimeMs),
    now,
    by === undefined ? undefined : { lastModifiedBy: by },
  );
}

export function lockCases(suite: JobsSuite): void {
  const repo = () => suite.repository;
  const save = (fields: Partial<JobParameters> = {}) => repo().saveJob(jobOf(fields), undefined);

  describe("locks", () => {
    it("locks the next due job, the earliest first, then the highest priority", async () => {
      const dueAt = new Date(Date.now() - MINUTE);
      await save({ name: "order", priority: 5, nextRunAt: dueAt, data: { n: "low" } });
      await save({ name: "order", priority: 10, nextRunAt: dueAt, data: { n: "high" } });
      await save({ name: "order", priority: 99, nextRunAt: new Date(Date.now() - 1_000) });
      await save({ name: "order", priority: 0, nextRunAt: new Date(Date.now() - 2 * MINUTE) });
      const order = [];
      for (let job = await next(repo(), "order"); job; job = await next(repo(), "order")) {
        expect(job.lockedAt).to.be.instanceOf(Date);
        order.push(job.priority);
      }
      expect(order).to.deep.equal([0, 10, 5, 99]);
    });

    it("locks a job due before the next scan, not one due after it, nor a disabled one", async () => {
      await save({ name: "soon", nextRunAt: new Date(Date.now() + 2_000) });
      await save({ name: "later", nextRunAt: new Date(Date.now() + MINUTE) });
      await save({ name: "off", disabled: true });
      expect(await next(repo(), "soon")).to.not.equal(undefined);
      expect(await next(repo(), "later")).to.equal(undefined);
      expect(await next(repo(), "off")).to.equal(undefined);
    });

    it("records who locked it", async () => {
      await save({ name: "who" });
      const job = await next(repo(), "who", 10 * MINUTE, "instance-1");
      expect(job?.lastModifiedBy).to.equal("instance-1");
    });

    it("leaves a freshly locked job alone, and takes over a lock older than the lifetime", async () => {
      const saved = await save({ name: "stale" });
      const locked = await next(repo(), "stale");
      expect(await next(repo(), "stale")).to.equal(undefined);
      // Its processor died 11 minutes ago, mid-run (a one-off: no next run any more).
      const lockedAt = new Date(Date.now() - 11 * MINUTE);
      await repo().saveJobState({ ...locked!, lockedAt, nextRunAt: null }, undefined);
      const taken = await next(repo(), "stale");
      expect(taken?._id).to.equal(saved._id);
      expect(taken?.lockedAt?.getTime()).to.be.greaterThan(Date.now() - 5_000);
      expect(await next(repo(), "stale")).to.equal(undefined);
    });

    it("lockJob locks a job once, and not a copy whose next run has changed", async () => {
      const saved = await save({ name: "lock-one" });
      const locked = await repo().lockJob(saved, undefined);
      expect(locked?._id).to.equal(saved._id);
      expect(locked?.lockedAt).to.be.instanceOf(Date);
      expect(await repo().lockJob(saved, undefined)).to.equal(undefined);
      const moved = await save({ name: "lock-moved" });
      await repo().saveJob({ ...moved, nextRunAt: new Date(Date.now() - 1_000) }, undefined);
      expect(await repo().lockJob(moved, undefined)).to.equal(undefined);
      const off = await save({ name: "lock-off", disabled: true });
      expect(await repo().lockJob(off, undefined)).to.equal(undefined);
    });

    it("unlocks one job, several, but not one without a next run (its run is under way)", async () => {
      const [a, b, c] = [await save(), await save(), await save()];
      for (const job of [a, b, c]) await repo().lockJob(job, undefined);
      await repo().saveJobState({ ...c, lockedAt: new Date(), nextRunAt: null }, undefined);
      await repo().unlockJob(a);
      await repo().unlockJob({ ...c, nextRunAt: null });
      expect((await repo().getJobById(String(a._id)))?.lockedAt == null).to.equal(true);
      expect((await repo().getJobById(String(c._id)))?.lockedAt).to.be.instanceOf(Date);
      await repo().unlockJobs([b._id as string, c._id as string]);
      for (const job of [b, c]) {
        expect((await repo().getJobById(String(job._id)))?.lockedAt == null).to.equal(true);
      }
    });

    it("clears the lock when a run ends (saveJobState without lockedAt)", async () => {
      const saved = await save({ name: "ends" });
      const locked = await repo().lockJob(saved, undefined);
      await repo().saveJobState(
        { ...locked!, lockedAt: undefined, lastFinishedAt: new Date() },
        {},
      );
      expect((await repo().getJobById(String(saved._id)))?.lockedAt == null).to.equal(true);
    });
  });

  describe("two repositories racing for the same job", function () {
    this.timeout(60_000);

    it("lets exactly one of them lock it, 1,000 times over", async () => {
      const other = (await suite.instance()).repository;
      const rounds = 1_000;
      const names = Array.from({ length: rounds }, (_, i) => `race-${i}`);
      // Saved ten at a time, raced ten rounds at a time (each round its own job).
      for (let i = 0; i < rounds; i += 10) {
        await Promise.all(names.slice(i, i + 10).map((name) => save({ name })));
      }
      const winners: number[] = [];
      for (let i = 0; i < rounds; i += 10) {
        const results = await Promise.all(
          names
            .slice(i, i + 10)
            .map((name) => Promise.all([next(repo(), name), next(other, name)])),
        );
        for (const pair of results) winners.push(pair.filter((job) => job !== undefined).length);
      }
      expect(winners.filter((count) => count !== 1)).to.deep.equal([]);
      expect(winners).to.have.length(rounds);
    });
  });
}
