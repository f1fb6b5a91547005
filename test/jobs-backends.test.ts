/**
 * The jobs backends' conformance suite (test/jobs/) on each database: SQLite and MySQL/MariaDB
 * with our knex backend, PostgreSQL with the official one. A missing server skips its part with a
 * notice, except under CI=true.
 */
import { jobsBackendConformance } from "./jobs/backend-conformance.ts";
import { databaseTargets } from "./helpers/test-databases.ts";

for (const target of databaseTargets) jobsBackendConformance(target);
