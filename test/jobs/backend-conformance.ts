/**
 * The conformance suite of the jobs backends: what agenda's own shared suites check of a backend
 * (saving, queries and counts, locks, agenda's scheduling API over it), what the service relies
 * on beyond them (atomic locks under a race, a dead processor's lock taken over once expired,
 * times to the millisecond) and the runner on it. jobs-backends.test.ts runs it on every database,
 * each with the backend the service picks: ours over knex on SQLite and MySQL/MariaDB, the
 * official one on PostgreSQL.
 */
import type { DatabaseTarget } from "../helpers/test-databases.ts";
import { failReasonCases } from "./fail-reason-cases.ts";
import { withJobsSuite } from "./jobs-suite.ts";
import { lockCases } from "./lock-cases.ts";
import { queryCases } from "./query-cases.ts";
import { runnerCases } from "./runner-cases.ts";
import { saveCases } from "./save-cases.ts";
import { scheduleCases } from "./schedule-cases.ts";
import { takeoverCases } from "./takeover-cases.ts";

export function jobsBackendConformance(target: DatabaseTarget): void {
  const backend = target.client === "postgres" ? "the official backend" : "the knex backend";
  describe(`jobs on ${target.label} (${backend})`, function () {
    this.timeout(20_000);
    withJobsSuite(target, (suite) => {
      saveCases(suite);
      queryCases(suite);
      lockCases(suite);
      scheduleCases(suite);
      runnerCases(suite);
      failReasonCases(suite);
      takeoverCases(suite);
    });
  });
}
