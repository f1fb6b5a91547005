/**
 * Opens the store: one knex instance on SQLite (embedded default), PostgreSQL or MySQL/MariaDB,
 * chosen by DATABASE_URL. The same migrations and repositories serve all three.
 */
import fs from "node:fs";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import pg from "pg";
import type { Logger } from "pino";
import type { DatabaseClient, Settings } from "../settings.ts";
import { ensurePrivateDir, ensurePrivateFile } from "../util/private-files.ts";
import { migrationSource } from "./migrations/index.ts";

// BIGINT (timestamps in ms) arrives as a string from pg by default; every value we keep fits
// in a double, so read it as a number like the other two drivers do.
pg.types.setTypeParser(20, (value) => Number(value));

/** How long a statement waits for another process's lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export interface Database {
  knex: Knex;
  client: DatabaseClient;
}

/** Where knex's own warnings go (a lost connection, a failed acquire): the service's logger. */
export type DatabaseLog = Pick<Logger, "warn" | "error" | "debug">;

export function openDatabase(database: Settings["database"], logger?: DatabaseLog): Database {
  // Unset, knex writes them to the console, outside the service's log.
  const log = logger && {
    warn: (message: string) => logger.warn({ component: "knex" }, message),
    error: (message: string) => logger.error({ component: "knex" }, message),
    deprecate: (message: string) => logger.debug({ component: "knex" }, message),
    debug: (message: string) => logger.debug({ component: "knex" }, message),
  };
  switch (database.client) {
    case "sqlite": {
      const filename = database.filename ?? ":memory:";
      if (database.privateDir !== undefined) ensurePrivateDir(database.privateDir);
      if (filename !== ":memory:") {
        fs.mkdirSync(path.dirname(filename), { recursive: true, mode: 0o700 });
        ensurePrivateFile(filename);
      }
      const knex = knexFactory({
        client: "better-sqlite3",
        connection: { filename },
        log,
        useNullAsDefault: true,
        pool: {
          // better-sqlite3 is synchronous: one connection serializes writes, as SQLite does anyway.
          min: 1,
          max: 1,
          afterCreate: (conn: BetterSqliteConnection, done: (err?: Error) => void) => {
            reusePreparedStatements(conn);
            conn.pragma("foreign_keys = ON");
            // Deleted rows are overwritten with zeros, not only marked free: an erasure leaves
            // no visitor's words in the file's free space (wal-truncation.ts empties the log).
            conn.pragma("secure_delete = ON");
            if (filename !== ":memory:") {
              conn.pragma("journal_mode = WAL");
              // A commit is in the WAL before it is acknowledged: it survives the process
              // crashing or being killed, not a power loss or an OS crash (which can lose the
              // last commits, never the database's consistency). FULL would also survive those,
              // at an fsync per commit that blocks the event loop (better-sqlite3 is
              // synchronous). better-sqlite3's build already defaults a WAL database to NORMAL
              // (SQLITE_DEFAULT_WAL_SYNCHRONOUS=1), but only once the file is in WAL mode, so a
              // new file began with FULL: set here, it is the same from the first write on.
              conn.pragma("synchronous = NORMAL");
            }
            conn.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
            done();
          },
        },
      });
      return { knex, client: "sqlite" };
    }
    case "postgres":
      return {
        knex: knexFactory({
          client: "pg",
          connection: database.url,
          pool: { min: 0, max: 10 },
          log,
        }),
        client: "postgres",
      };
    case "mysql":
      return {
        knex: knexFactory({
          client: "mysql2",
          connection: { uri: database.url, supportBigNumbers: true, charset: "utf8mb4" } as never,
          pool: { min: 0, max: 10 },
          log,
        }),
        client: "mysql",
      };
  }
}

/** Brings the schema up to date; safe to run on every start and from several instances. */
export async function migrate(db: Database): Promise<string[]> {
  const [, applied] = (await db.knex.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/** Checks that the store answers; used by the health endpoint. */
export async function ping(db: Database): Promise<void> {
  await db.knex.raw("select 1");
}

/** The part of a better-sqlite3 connection the setup uses. */
interface BetterSqliteConnection {
  pragma(sql: string): unknown;
  prepare(sql: string): unknown;
}

/** Statements kept prepared per connection; the SQL knex builds has few distinct shapes. */
const PREPARED_STATEMENTS_KEPT = 256;

/**
 * knex prepares every query it runs on better-sqlite3 anew (`connection.prepare(sql)` per call),
 * which showed as the largest cost of a request that reads one row. A statement can be run again
 * with other bindings, so the connection keeps the most recent ones by their SQL text (knex binds
 * every value, so the text is the query's shape) and hands back the prepared one. SQLite
 * re-prepares a statement itself when the schema changed under it.
 */
function reusePreparedStatements(conn: BetterSqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const kept = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = kept.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (kept.size >= PREPARED_STATEMENTS_KEPT) kept.delete(kept.keys().next().value as string);
    } else {
      // Most recently used last, so the oldest is the first key.
      kept.delete(sql);
    }
    kept.set(sql, statement);
    return statement;
  };
}
