/**
 * The runner (core/jobs/jobs.ts) on the backend: schedules written once however many instances
 * start, jobs queued on demand, SITEVOICE_JOBS=off, failures logged by name without the data, a
 * graceful stop. And two processors on the same database sharing 1,000 jobs: each runs once.
 */
import { expect } from "chai";
import type { JobDefinition } from "../../core/jobs/job-definition.ts";
import { cron, every } from "../../core/jobs/job-definition.ts";
import { eventually, sleep, type JobsSuite, type TestParts } from "./jobs-suite.ts";

/** A definition whose runs are recorded (by the instance's store, with their data). */
function recorded(
  name: string,
  fields: Partial<JobDefinition<TestParts>> = {},
): { definition: JobDefinition<TestParts>; runs: { parts: TestParts; data: unknown }[] } {
  const runs: { parts: TestParts; data: unknown }[] = [];
  return {
    runs,
    definition: {
      name,
      run: async (parts, data) => {
        runs.push({ parts, data });
      },
      ...fields,
    },
  };
}

export function runnerCases(suite: JobsSuite): void {
  describe("the runner", () => {
    it("writes a schedule once however many instances start, and runs it", async () => {
      const tick = recorded("test.tick", { schedule: every(150) });
      const a = await suite.runner([tick.definition]);
      const b = await suite.runner([tick.definition]);
      await eventually("three runs", () => tick.runs.length >= 3, 5_000);
      const rows = (await suite.repository.queryJobs({ name: "test.tick" })).jobs;
      expect(rows.map((j) => [j.type, j.repeatInterval])).to.deep.equal([["single", "150"]]);
      const stores = new Set(tick.runs.map((r) => r.parts.store));
      expect([...stores].every((s) => s === a.parts.store || s === b.parts.store)).to.equal(true);
    });

    it("starts four instances at once, each connecting and writing the schedule", async () => {
      const tick = recorded("test.together", { schedule: every(60_000) });
      await Promise.all([1, 2, 3, 4].map(() => suite.runner([tick.definition])));
      const rows = (await suite.repository.queryJobs({ name: "test.together" })).jobs;
      expect(rows).to.have.length(1);
    });

    it("writes a cron schedule with its time zone, and runs it", async () => {
      const berlin = recorded("test.berlin", { schedule: cron("* * * * * *", "Europe/Berlin") });
      await suite.runner([berlin.definition]);
      const [row] = (await suite.repository.queryJobs({ name: "test.berlin" })).jobs;
      expect([row?.repeatInterval, row?.repeatTimezone]).to.deep.equal([
        "* * * * * *",
        "Europe/Berlin",
      ]);
      await eventually("a run", () => berlin.runs.length > 0, 5_000);
    });

    it("runs a job queued now once, with its data, then removes it; refuses an unknown name", async () => {
      const send = recorded("test.send");
      const { jobs } = await suite.runner([send.definition]);
      const id = await jobs.now("test.send", { to: "owner" });
      await eventually("the run", () => send.runs.length === 1, 5_000);
      await eventually(
        "the row gone",
        async () => (await suite.repository.getJobById(id)) === null,
      );
      await sleep(150);
      expect(send.runs.map((r) => r.data)).to.deep.equal([{ to: "owner" }]);
      let refused: unknown;
      await jobs.now("test.unknown").catch((e: unknown) => (refused = e));
      expect(String(refused)).to.match(/no job is defined as "test.unknown"/);
    });

    it("runs a job scheduled for later, not before", async () => {
      const ranAt: number[] = [];
      const later: JobDefinition<TestParts> = {
        name: "test.later",
        run: async () => {
          ranAt.push(Date.now());
        },
      };
      const { jobs } = await suite.runner([later]);
      const when = new Date(Date.now() + 300);
      await jobs.schedule(when, "test.later", { n: 1 });
      await eventually("the run", () => ranAt.length === 1, 5_000);
      expect(ranAt[0]).to.be.at.least(when.getTime());
    });

    it("with SITEVOICE_JOBS=off queues jobs but neither runs them nor writes schedules", async () => {
      const job = recorded("test.off", { schedule: every(50) });
      const off = await suite.runner([job.definition], { SITEVOICE_JOBS: "off" });
      expect(off.jobs.processing).to.equal(false);
      await off.jobs.now("test.off", { n: 1 });
      await sleep(300);
      expect(job.runs).to.deep.equal([]);
      const rows = (await suite.repository.queryJobs({ name: "test.off" })).jobs;
      expect(rows.map((r) => r.type)).to.deep.equal(["normal"]);
      const on = await suite.runner([job.definition]);
      await eventually("the run on the instance that processes", () =>
        job.runs.some((r) => r.parts === on.parts),
      );
    });

    it("logs a failed run with the job's name, never its data", async () => {
      const definition: JobDefinition<TestParts> = {
        name: "test.broken",
        run: async () => {
          throw new Error("the relay refused");
        },
      };
      const { jobs, parts } = await suite.runner([definition]);
      await jobs.now("test.broken", { token: "secret-token-value" });
      await eventually("the failure logged", () => parts.logs.some((l) => l.msg === "job failed"));
      const line = parts.logs.find((l) => l.msg === "job failed");
      expect(line).to.deep.include({ level: 40, job: "test.broken" });
      expect(JSON.stringify(parts.logs)).to.not.include("secret-token-value");
    });

    it("stops gracefully: waits for the run under way, releases the jobs it locked but had not started", async () => {
      let release: () => void = () => {};
      const started: unknown[] = [];
      const finished: unknown[] = [];
      const slow: JobDefinition<TestParts> = {
        name: "test.slow",
        concurrency: 1,
        run: async (_parts, data) => {
          started.push(data);
          await new Promise<void>((resolve) => (release = resolve));
          finished.push(data);
        },
      };
      const { jobs } = await suite.runner([slow]);
      const first = await jobs.now("test.slow", 1);
      const second = await jobs.now("test.slow", 2);
      await eventually("one run started, the other job locked", async () => {
        const locked = await suite.repository.getJobById(started[0] === 1 ? second : first);
        return started.length === 1 && locked?.lockedAt instanceof Date;
      });
      const waiting = started[0] === 1 ? second : first;
      const stopped = jobs.stop();
      await sleep(100);
      expect(finished).to.deep.equal([]);
      release();
      await stopped;
      expect(finished).to.deep.equal(started);
      const left = await suite.repository.getJobById(waiting);
      expect(left?.lockedAt == null).to.equal(true);
      expect(started).to.have.length(1);
    });
  });

  describe("two processors on one database", function () {
    this.timeout(60_000);

    it("run each of 1,000 jobs queued now exactly once", async () => {
      const counts = new Map<number, number>();
      const byInstance = new Map<TestParts, number>();
      const race: JobDefinition<TestParts> = {
        name: "test.race",
        concurrency: 10,
        run: async (parts, data) => {
          counts.set(data as number, (counts.get(data as number) ?? 0) + 1);
          byInstance.set(parts, (byInstance.get(parts) ?? 0) + 1);
        },
      };
      const a = await suite.runner([race]);
      await suite.runner([race]);
      for (let n = 0; n < 1_000; n += 20) {
        await Promise.all(Array.from({ length: 20 }, (_, i) => a.jobs.now("test.race", n + i)));
      }
      await eventually("1,000 runs", () => counts.size === 1_000, 50_000);
      await eventually(
        "every row removed once its run succeeded",
        async () => (await suite.repository.queryJobs({ name: "test.race" })).total === 0,
      );
      await sleep(200); // a second run of any job would show by now
      expect([...counts.values()].filter((count) => count !== 1)).to.deep.equal([]);
      expect([...byInstance.values()].reduce((sum, n) => sum + n, 0)).to.equal(1_000);
    });
  });
}
