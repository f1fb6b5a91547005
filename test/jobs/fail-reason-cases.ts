/**
 * A failure's reason is stored as text whatever was thrown: agenda keeps an Error's message and
 * hands anything else over as it is, which better-sqlite3 cannot bind (the run's last save threw,
 * so the job stayed locked until its lock expired) and MySQL wrote as "[object Object]". On every
 * backend a run that throws something other than an Error is saved as failed, unlocked, with its
 * reason as text (fail-reason.ts): a string as it is, anything else as JSON, else String().
 * On our knex backend the repository itself stores any reason it is handed as text.
 */
import { expect } from "chai";
import type { JobParameters } from "agenda";
import type { JobDefinition } from "../../core/jobs/job-definition.ts";
import { eventually, jobOf, type JobsSuite, type TestParts } from "./jobs-suite.ts";

/** What a run throws, and the reason the job is saved with. */
const THROWN: { what: string; value: unknown; reason: string }[] = [
  {
    what: "an object",
    value: { code: "E_RELAY", status: 502 },
    reason: '{"code":"E_RELAY","status":502}',
  },
  { what: "an array", value: ["relay", 502], reason: '["relay",502]' },
  { what: "a number", value: 502, reason: "502" },
  { what: "a string", value: "the relay refused", reason: "the relay refused" },
  { what: "undefined", value: undefined, reason: "undefined" },
  { what: "null", value: null, reason: "null" },
  { what: "a value JSON cannot write (a BigInt)", value: 502n, reason: "502" },
  { what: "an Error", value: new Error("the relay refused"), reason: "the relay refused" },
];

export function failReasonCases(suite: JobsSuite): void {
  describe("a run that throws something other than an Error", () => {
    for (const { what, value, reason } of THROWN) {
      it(`throwing ${what}: saved as failed with the reason ${JSON.stringify(reason)}, unlocked`, async () => {
        const name = "test.throws";
        const definition: JobDefinition<TestParts> = {
          name,
          run: async () => {
            throw value;
          },
        };
        const { jobs } = await suite.runner([definition]);
        const id = await jobs.now(name);
        const read = () => suite.repository.getJobById(id);
        await eventually("the failed run saved", async () => (await read())?.failCount === 1);
        const job = await read();
        expect({ reason: job?.failReason, locked: job?.lockedAt != null }).to.deep.equal({
          reason,
          locked: false,
        });
      });
    }
  });

  if (suite.target.client === "postgres") return; // the official backend: not ours to change
  describe("a fail reason handed to the knex repository that is not text", () => {
    const cases = THROWN.filter(({ value }) => !(value instanceof Error) && value !== undefined);
    for (const { what, value, reason } of cases) {
      it(`saveJobState stores ${what} as ${JSON.stringify(reason)} and the job unlocked`, async () => {
        const saved = await suite.repository.saveJob(jobOf(), undefined);
        const locked = await suite.repository.lockJob(saved, undefined);
        const failed: JobParameters = {
          ...(locked as JobParameters),
          lockedAt: undefined,
          failedAt: new Date(),
          failCount: 1,
          failReason: value as string,
        };
        await suite.repository.saveJobState(failed, undefined);
        const read = await suite.repository.getJobById(String(saved._id));
        expect({ reason: read?.failReason, locked: read?.lockedAt != null }).to.deep.equal({
          reason,
          locked: false,
        });
      });
    }

    it("saveJob stores an object reason as JSON text", async () => {
      const saved = await suite.repository.saveJob(jobOf(), undefined);
      const reason = { code: "E_RELAY" } as unknown as string;
      await suite.repository.saveJob({ ...saved, failReason: reason }, undefined);
      const read = await suite.repository.getJobById(String(saved._id));
      expect(read?.failReason).to.equal('{"code":"E_RELAY"}');
    });
  });
}
