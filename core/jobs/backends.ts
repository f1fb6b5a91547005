/**
 * The agenda backend of the store's database: on SQLite and MySQL/MariaDB our knex backend on the
 * store's own knex instance (table `jobs`); on PostgreSQL the official backend, which manages its
 * own table (`agenda_jobs`), on a small pg pool of its own from the store's URL: it takes a
 * `pg.Pool`, which knex's pool is not. Its LISTEN/NOTIFY channel is off, so every store polls
 * alike. It writes its schema on every connect (CREATE … IF NOT EXISTS, CREATE OR REPLACE, a
 * trigger dropped and made again), which fails when another instance does so at the same moment
 * ("tuple concurrently updated", a duplicate catalog key): every statement is idempotent, so the
 * connect is tried again.
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
  /** Connects the backend (again while its schema statements race another instance's). */
  connect(): Promise<void>;
  /** Closes what the backend opened of its own (the pg pool); the store's knex stays open. */
  close(): Promise<void>;
}

export function openJobsBackend(
  db: Database,
  database: DatabaseSettings,
  logger: Logger,
): JobsBackend {
  if (db.client !== "postgres") {
    const backend = new KnexBackend(db.knex, db.client);
    return { backend, connect: () => backend.connect(), close: async () => {} };
  }
  const pool = new pg.Pool({ connectionString: database.url, max: POSTGRES_POOL_SIZE });
  // An idle client's error (the server restarted) is emitted on the pool; unheard, it would
  // end the process. The pool replaces the client on the next query.
  pool.on("error", (err) => logger.warn({ err: err.message }, "jobs: database connection lost"));
  const backend = new PostgresBackend({ pool, disableNotifications: true });
  let closed: Promise<void> | undefined;
  return {
    backend,
    connect: () => retryingSchemaRaces(() => backend.connect()),
    close: () => (closed ??= pool.end()),
  };
}

/**
 * SQLSTATEs of DDL racing DDL: internal error (tuple concurrently updated), unique violation (a
 * catalog key), duplicate table or object, deadlock, serialization failure.
 */
const SCHEMA_RACES = new Set(["XX000", "23505", "42P07", "42710", "40P01", "40001"]);
const CONNECT_ATTEMPTS = 8;

async function retryingSchemaRaces(connect: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await connect();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= CONNECT_ATTEMPTS || !SCHEMA_RACES.has(String(code))) throw error;
      // Spread out, so the racers do not meet again.
      await new Promise((resolve) => setTimeout(resolve, attempt * (20 + Math.random() * 80)));
    }
  }
}
