/**
 * What SQLite keeps of deleted rows after their transaction: `secure_delete` (database.ts) zeroes
 * the freed space in the pages, but the write-ahead log (the `-wal` file) still holds the frames
 * of the commits that wrote those rows, until a checkpoint copies the latest pages into the
 * database and the log starts over (SQLite's own checkpoints keep the file and write over it).
 * After an erasure or a site's deletion, a TRUNCATE checkpoint copies every frame and empties
 * the file. It cannot finish while another connection (another process: a CLI command, a backup,
 * the sqlite3 shell) reads a snapshot from before the deletion; it then answers at once rather
 * than wait (a wait would block the event loop) and is owed: `truncateOwedWal` tries it again.
 * PostgreSQL and MySQL keep dead rows until their own vacuum and purge (docs/visitor-data.md says what an
 * operator runs): nothing to do here for them.
 */
import type { Database } from "./database.ts";
import { SQLITE_BUSY_TIMEOUT_MS } from "./database.ts";

/** The part of a better-sqlite3 connection a checkpoint uses. */
interface SqliteConnection {
  pragma(sql: string): unknown;
}

/** Databases whose log still holds frames a blocked truncation was to remove. */
const owed = new WeakSet<Database>();

/**
 * Empties SQLite's write-ahead log after a deletion; whether it is empty now (always on the other
 * databases, and on SQLite in memory, which keeps no log).
 */
export async function truncateWal(db: Database): Promise<boolean> {
  if (db.client !== "sqlite") return true;
  const client = db.knex.client as {
    acquireConnection(): Promise<SqliteConnection>;
    releaseConnection(connection: SqliteConnection): Promise<unknown>;
  };
  // The one connection (database.ts), held so no query of ours runs between the pragmas.
  const connection = await client.acquireConnection();
  let busy: number;
  try {
    connection.pragma("busy_timeout = 0");
    [{ busy }] = connection.pragma("wal_checkpoint(TRUNCATE)") as [{ busy: number }];
  } finally {
    connection.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    await client.releaseConnection(connection);
  }
  if (busy === 0) owed.delete(db);
  else owed.add(db);
  return busy === 0;
}

/** Tries again a truncation another connection held up; whether none is owed any more. */
export async function truncateOwedWal(db: Database): Promise<boolean> {
  return owed.has(db) ? truncateWal(db) : true;
}
