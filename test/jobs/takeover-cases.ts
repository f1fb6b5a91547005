/**
 * A processor that dies holding a job: a child process locks a job and starts running it, and is
 * killed with SIGKILL, so nothing unlocks it. Another instance leaves the job alone while the lock
 * is fresh, and runs it once the lock lifetime has passed.
 */
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { HOLD_JOB, HOLD_LOCK_LIFETIME_MS } from "./hold-job.ts";
import { eventually, type JobsSuite } from "./jobs-suite.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(here, "hold-job-child.ts");

export function takeoverCases(suite: JobsSuite): void {
  describe("a processor killed holding a job", function () {
    this.timeout(30_000);

    it("leaves the job locked, and another instance runs it once the lock expired", async () => {
      const { jobs: queue } = await suite.runner([{ name: HOLD_JOB, run: async () => undefined }], {
        SITEVOICE_JOBS: "off",
      });
      const data = { n: crypto.randomInt(1_000_000) };
      const id = await queue.now(HOLD_JOB, data);
      const child = spawn(process.execPath, ["--import", "tsx", CHILD, suite.url], {
        cwd: path.resolve(here, "..", ".."),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const exited = new Promise((resolve) => child.on("exit", resolve));
      try {
        await eventually(
          "the child running the job",
          () => {
            if (child.exitCode !== null) throw new Error(`the child exited: ${output}`);
            return output.includes(`running ${JSON.stringify(data)}`);
          },
          20_000,
        );
      } finally {
        child.kill("SIGKILL");
        await exited;
      }
      const held = await suite.repository.getJobById(id);
      expect(held?.lastModifiedBy).to.equal("doomed");
      const lockedAt = held?.lockedAt?.getTime() ?? 0;
      expect(lockedAt).to.be.greaterThan(0);

      const runs: { at: number; data: unknown }[] = [];
      await suite.runner([
        {
          name: HOLD_JOB,
          lockLifetimeMs: HOLD_LOCK_LIFETIME_MS,
          run: async (_parts, given) => {
            runs.push({ at: Date.now(), data: given });
          },
        },
      ]);
      await eventually("the job taken over", () => runs.length > 0, 10_000);
      expect(runs[0]?.at).to.be.at.least(lockedAt + HOLD_LOCK_LIFETIME_MS);
      expect(runs.map((r) => r.data)).to.deep.equal([data]);
      await eventually("the row removed once the run succeeded", async () => {
        return (await suite.repository.getJobById(id)) === null;
      });
    });
  });
}
