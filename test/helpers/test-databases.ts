/**
 * The real databases the suites run on. Each target's URL comes from the environment
 * (TEST_PG_URL, TEST_MYSQL_URL), else the standard local port. A suite gets a fresh database of
 * its own and drops it afterwards. Where a server is missing the suite is skipped with a loud
 * notice, except under CI=true, where missing is a failure.
 */
import crypto from "node:crypto";
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import knexFactory from "knex";
import type { DatabaseClient } from "../../core/settings.ts";

export interface DatabaseTarget {
  client: DatabaseClient;
  /** Human name used in suite titles, so the output names each database. */
  label: string;
  /** Server URL with the database to connect to for admin work. */
  adminUrl?: string;
}

export const databaseTargets: DatabaseTarget[] = [
  { client: "sqlite", label: "SQLite" },
  {
    client: "postgres",
    label: "PostgreSQL",
    adminUrl: process.env.TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  },
  {
    client: "mysql",
    label: "MariaDB/MySQL",
    adminUrl: process.env.TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test",
  },
];

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

const adminKnex = (target: DatabaseTarget) =>
  knexFactory(
    target.client === "postgres"
      ? {
          client: "pg",
          connection: { connectionString: target.adminUrl, connectionTimeoutMillis: 3000 },
          pool: { min: 0, max: 1 },
        }
      : {
          client: "mysql2",
          connection: { uri: target.adminUrl, connectTimeout: 3000 } as never,
          pool: { min: 0, max: 1 },
        },
  );

/** Creates an empty database for one suite; undefined when the server is not there. */
export async function createTestDatabase(
  target: DatabaseTarget,
): Promise<TestDatabase | undefined> {
  const name = `sv_test_${crypto.randomBytes(5).toString("hex")}`;
  if (target.client === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-"));
    return {
      url: `sqlite:${path.join(dir, "test.db")}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = adminKnex(target);
  try {
    await admin.raw(
      target.client === "postgres"
        ? `create database ${name}`
        : `create database ${name} character set utf8mb4`,
    );
  } catch (error) {
    await admin.destroy();
    if (isUnreachable(error)) return undefined;
    throw error;
  }
  const url = new URL(target.adminUrl as string);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await admin.raw(
          target.client === "postgres"
            ? `drop database if exists ${name} with (force)`
            : `drop database if exists ${name}`,
        );
      } finally {
        await admin.destroy();
      }
    },
  };
}

const isUnreachable = (error: unknown) => {
  const code = (error as { code?: string }).code;
  return (
    code === "ECONNREFUSED" ||
    code === "ETIMEDOUT" ||
    code === "ENOTFOUND" ||
    /timeout|ECONNREFUSED/i.test(String(error))
  );
};

/**
 * In a mocha `before` hook: skips the suite with a notice when `what` is missing, but fails under
 * CI=true, where every database must be there.
 */
export function missing(context: Mocha.Context, what: string): never {
  const message = `${what} is not reachable`;
  if (process.env.CI === "true") throw new Error(`${message}, and CI=true requires it`);
  // eslint-disable-next-line no-console -- the notice must be loud in the test output
  console.warn(`\n  !!! SKIPPED: ${message}; set its TEST_*_URL or start it (see README) !!!\n`);
  context.skip();
}
