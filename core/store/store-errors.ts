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

/** Escapes a user string for `LIKE … ESCAPE '!'`, so `%` and `_` match themselves. */
export const likePattern = (text: string) =>
  `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
