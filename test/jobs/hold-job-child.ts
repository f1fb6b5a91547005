/**
 * A processor to be killed holding a job (takeover-cases.ts runs it): on the database of
 * argv[2], it runs `test.hold`, whose run prints `running <job id>` and never ends, so the lock
 * stays until it expires. Its instance name is `doomed`.
 */
import pino from "pino";
import { startJobs } from "../../core/jobs/jobs.ts";
import { loadSettings } from "../../core/settings.ts";
import { openDatabase } from "../../core/store/database.ts";
import { Store } from "../../core/store/store.ts";
import { HOLD_JOB, HOLD_LOCK_LIFETIME_MS } from "./hold-job.ts";

const settings = loadSettings({ DATABASE_URL: process.argv[2] ?? "" });
const store = new Store(openDatabase(settings.database));
await startJobs(
  { settings, logger: pino({ level: "silent" }), store },
  [
    {
      name: HOLD_JOB,
      lockLifetimeMs: HOLD_LOCK_LIFETIME_MS,
      run: (_parts, data) => {
        process.stdout.write(`running ${JSON.stringify(data)}\n`);
        return new Promise(() => {});
      },
    },
  ],
  { processEveryMs: 50, instanceName: "doomed" },
);
process.stdout.write("ready\n");
