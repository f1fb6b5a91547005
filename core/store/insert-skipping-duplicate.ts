import type { Knex } from "knex";
import type { DatabaseClient } from "../settings.ts";

/**
 * INSERT of `rows` into `table` that skips a row whose `key`, a unique key of the table, is
 * already taken, and fails on anything else (a missing site, a value too long for its column).
 * MySQL has no conflict target, and its INSERT IGNORE would also turn those failures into
 * warnings: there a taken key sets the stored row's `self` column (its id, by default) to itself,
 * which changes nothing. That also skips a taken primary key, which a fresh ULID never is.
 */
export function insertSkippingDuplicate(
  knex: Knex,
  table: string,
  rows: object | readonly object[],
  key: readonly string[],
  client: DatabaseClient,
  self = "id",
): Knex.QueryBuilder {
  const insert = knex(table).insert(rows);
  return client === "mysql"
    ? insert.onConflict().merge({ [self]: knex.ref(self) })
    : insert.onConflict([...key]).ignore();
}
