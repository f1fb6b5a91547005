/** Tells a unique-key violation apart on the three databases. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown };
  return (
    e?.code === "23505" || // PostgreSQL
    e?.code === "ER_DUP_ENTRY" || // MySQL / MariaDB
    e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    e?.code === "SQLITE_CONSTRAINT_UNIQUE"
  );
}

/** Network errors of a driver that cannot reach its database, or lost the connection to it. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "PROTOCOL_CONNECTION_LOST", // mysql2
  "ER_SERVER_SHUTDOWN", // MySQL / MariaDB shutting down
  "ER_CON_COUNT_ERROR", // MySQL / MariaDB: too many connections
  "SQLITE_BUSY", // another process holds the file's lock past busy_timeout
]);

/** PostgreSQL: a connection exception (class 08), shutting down or starting up (57P01–57P03). */
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

/**
 * What pg says when the server closes the connection under a query, or a client already closed
 * is used (no code; knex puts the SQL before the message, so it is not anchored).
 */
const PG_TERMINATED =
  /Connection terminated|Client has encountered a connection error|Client was closed and is not queryable/;

/**
 * Tells apart an error that says the database cannot be reached for now (restarting, down,
 * unreachable, out of connections, or knex waiting too long for a connection) from a fault in
 * what was asked: the first is answered 503 with Retry-After, which a client retries.
 */
export function isStoreUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === "string" && (UNREACHABLE.has(code) || PG_UNAVAILABLE.test(code))) {
      return true;
    }
    if (e.name === "KnexTimeoutError" || PG_TERMINATED.test(e.message)) return true;
    // Node's connect to a host with several addresses fails with an AggregateError.
    if (e instanceof AggregateError && e.errors.some((inner) => isStoreUnavailable(inner))) {
      return true;
    }
  }
  return false;
}

/** A transaction the database aborted to break a deadlock: trying it again may succeed. */
export function isDeadlock(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown };
  return e?.code === "40P01" || e?.code === "ER_LOCK_DEADLOCK" || e?.errno === 1213;
}

/** Escapes a user string for `LIKE … ESCAPE '!'`, so `%` and `_` match themselves. */
export const likePattern = (text: string) =>
  `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
