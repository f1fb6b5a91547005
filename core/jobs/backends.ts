/**
 * The agenda backend of the store's database: on SQLite and MySQL/MariaDB our knex backend on the
 * store's own knex instance (table `jobs`); on PostgreSQL the official backend, which manages its
 * own table (`agenda_jobs`), on a small pg pool of its own from the store's URL: it takes a
 * `pg.Pool`, which knex's pool is not. Its LISTEN/NOTIFY channel is off, so every store polls
 * alike.
 */
import { PostgresBackend } from "@agendajs/postgres-backend";
import type { AgendaBackend } from "agenda";
import pg from "pg";
import type { Logger } from "pino";
import type { DatabaseSettings } from "../settings.ts";
import type { Database } from "../store/database.ts";
import { KnexBackend } from "./knex-backend.ts";

/** Connections of the PostgreSQL backend's pool: a lock, a save or two at a time. */
const POSTGRES_POOL_SIZE = 4;

export interface JobsBackend {
  backend: AgendaBackend;
  /** Closes what the backend opened of its own (the pg pool); the store's knex stays open. */
  close(): Promise<void>;
}

export function openJobsBackend(
  db: Database,
  database: DatabaseSettings,
  logger: Logger,
): JobsBackend {
  if (db.client !== "postgres") {
    return { backend: new KnexBackend(db.knex, db.client), close: async () => {} };
  }
  const pool = new pg.Pool({ connectionString: database.url, max: POSTGRES_POOL_SIZE });
  // An idle client's error (the server restarted) is emitted on the pool; unheard, it would
  // end the process. The pool replaces the client on the next query.
  pool.on("error", (err) => logger.warn({ err: err.message }, "jobs: database connection lost"));
  const backend = new PostgresBackend({ pool, disableNotifications: true });
  let closed: Promise<void> | undefined;
  return { backend, close: () => (closed ??= pool.end()) };
}
