/**
 * agenda's own API over the backend, as agenda's shared suite drives it: `every` makes one row per
 * name, repeat intervals and cron expressions in a time zone (the next run across a DST change,
 * computed from what the backend stored), `repeatAt`, `now` with data, `unique`, disable and
 * enable, failures recorded, the lock held during a run.
 */
import { expect } from "chai";
import { Agenda, Job } from "agenda";
import type { JobsSuite } from "./jobs-suite.ts";
import { eventually, sleep } from "./jobs-suite.ts";

export function scheduleCases(suite: JobsSuite): void {
  let agenda: Agenda;
  let errors: Error[];
  beforeEach(() => {
    // The suite connected the backend; agenda's constructor would connect it again, unawaited.
    const { name, repository } = suite.first.backend.backend;
    const backend = { name, repository, ownsConnection: false, connect: async () => {} };
    agenda = new Agenda({ backend: { ...backend, disconnect: async () => {} }, processEvery: 50 });
    errors = [];
    agenda.on("error", (err: Error) => errors.push(err));
  });
  afterEach(async () => {
    await agenda.stop();
    expect(errors.map((e) => e.message)).to.deep.equal([]);
  });

  /** The job `id` rebuilt from what the backend stored. */
  const stored = async (id: unknown) => {
    const params = await suite.repository.getJobById(String(id));
    expect(params).to.not.equal(null);
    return new Job(agenda, params!);
  };

  describe("agenda over the backend", () => {
    it("every() makes one row per name, updated when called again", async () => {
      await agenda.every("1 minute", "interval-job");
      await agenda.every("5 minutes", "interval-job");
      await agenda.every("0 6 * * *", "cron-job");
      const interval = (await agenda.queryJobs({ name: "interval-job" })).jobs;
      expect(interval.map((j) => [j.type, j.repeatInterval])).to.deep.equal([
        ["single", "5 minutes"],
      ]);
      expect((await agenda.queryJobs({ name: "cron-job" })).jobs[0]?.repeatInterval).to.equal(
        "0 6 * * *",
      );
    });

    it("computes a cron's next run in its time zone across a DST change, from the stored job", async () => {
      // 09:00 in New York each day; clocks went forward on Sunday 8 March 2026.
      const job = agenda.create("ny-cron", {});
      job.repeatEvery("0 9 * * *", { timezone: "America/New_York" });
      await job.save();
      const fromStore = await stored(job.attrs._id);
      const { repeatInterval, repeatTimezone } = fromStore.attrs;
      expect([repeatInterval, repeatTimezone]).to.deep.equal(["0 9 * * *", "America/New_York"]);
      /** The next run after `from`, as agenda computes it from the stored interval and zone. */
      const after = (from: string) => {
        fromStore.attrs.nextRunAt = new Date(from);
        fromStore.repeatEvery(repeatInterval!, { timezone: repeatTimezone, skipImmediate: true });
        return fromStore.attrs.nextRunAt?.toISOString();
      };
      expect(after("2026-03-06T14:00:00.000Z")).to.equal("2026-03-07T14:00:00.000Z"); // EST
      expect(after("2026-03-07T14:00:00.000Z")).to.equal("2026-03-08T13:00:00.000Z"); // EDT
      await suite.repository.saveJobState(fromStore.attrs, undefined);
      const again = await stored(job.attrs._id);
      expect(again.attrs.nextRunAt?.toISOString()).to.equal("2026-03-08T13:00:00.000Z");
    });

    it("runs a cron in a time zone and stores its next run", async () => {
      let runs = 0;
      agenda.define("tz-cron", async () => {
        runs += 1;
      });
      await agenda.every("* * * * * *", "tz-cron", undefined, { timezone: "America/New_York" });
      await agenda.start();
      await eventually("a run of the cron", () => runs > 0, 5_000);
      await eventually("its next run stored", async () => {
        const [job] = (await agenda.queryJobs({ name: "tz-cron" })).jobs;
        return job?.lastFinishedAt !== undefined && (job.nextRunAt?.getTime() ?? 0) > Date.now();
      });
    });

    it("runs a repeatAt job and moves its next run to the next such time", async () => {
      let runs = 0;
      agenda.define("at-job", async () => {
        runs += 1;
      });
      const job = agenda.create("at-job", {});
      await job.repeatAt("3:30pm").schedule(new Date()).save();
      await agenda.start();
      await eventually("the run", () => runs === 1, 5_000);
      await eventually("the next run stored", async () => {
        const read = await suite.repository.getJobById(String(job.attrs._id));
        return read?.lastFinishedAt !== undefined && read.lockedAt == null;
      });
      const read = await stored(job.attrs._id);
      expect(read.attrs.repeatAt).to.equal("3:30pm");
      const next = read.attrs.nextRunAt;
      expect([next?.getHours(), next?.getMinutes()]).to.deep.equal([15, 30]);
      expect(next?.getTime()).to.be.greaterThan(Date.now());
    });

    it("repeats an interval, on one row, its next run moving on", async () => {
      let runs = 0;
      agenda.define("repeat", async () => {
        runs += 1;
      });
      await agenda.every(100, "repeat");
      await agenda.start();
      await eventually("three runs", () => runs >= 3, 5_000);
      const jobs = (await agenda.queryJobs({ name: "repeat" })).jobs;
      expect(jobs).to.have.length(1);
      expect(jobs[0]?.repeatInterval).to.equal("100");
    });

    it("runs a job queued now once, with its data, and holds its lock meanwhile", async () => {
      const seen: unknown[] = [];
      let lockedDuringRun: unknown;
      agenda.define("now-job", async (job: Job) => {
        seen.push(job.attrs.data);
        lockedDuringRun = (await suite.repository.getJobById(String(job.attrs._id)))?.lockedAt;
      });
      await agenda.start();
      const job = await agenda.now("now-job", { site: "luigis" });
      await eventually("the run", () => seen.length > 0, 5_000);
      await eventually("the lock released", async () => {
        const read = await suite.repository.getJobById(String(job.attrs._id));
        return read?.lastFinishedAt !== undefined && read.lockedAt == null;
      });
      await sleep(200);
      expect(seen).to.deep.equal([{ site: "luigis" }]);
      expect(lockedDuringRun).to.be.instanceOf(Date);
    });

    it("saves a unique job once per key", async () => {
      for (const n of [1, 2]) {
        await agenda.create("unique-job", { userId: 7, n }).unique({ "data.userId": 7 }).save();
      }
      const jobs = (await agenda.queryJobs({ name: "unique-job" })).jobs;
      expect(jobs.map((j) => j.data)).to.deep.equal([{ userId: 7, n: 2 }]);
    });

    it("does not run a disabled job, and runs it once enabled", async () => {
      let runs = 0;
      agenda.define("toggled", async () => {
        runs += 1;
      });
      const job = await agenda.now("toggled");
      await job.disable().save();
      await agenda.start();
      await sleep(300);
      expect(runs).to.equal(0);
      expect(await agenda.enable({ name: "toggled" })).to.equal(1);
      await eventually("the run once enabled", () => runs === 1, 5_000);
    });

    it("records a failure on the job: reason, count, time", async () => {
      agenda.define("fails", async () => {
        throw new Error("no luck");
      });
      await agenda.start();
      const job = await agenda.now("fails");
      await eventually("the failure stored", async () => {
        const read = await suite.repository.getJobById(String(job.attrs._id));
        return read?.failCount === 1 && read.failReason === "no luck";
      });
      const [failed] = (await agenda.queryJobs({ state: "failed" })).jobs;
      expect(failed?.failedAt).to.be.instanceOf(Date);
    });
  });
}
