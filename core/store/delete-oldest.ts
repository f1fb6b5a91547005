/**
 * Deletes up to `limit` rows of `table` whose `column` (by default `created_at`) is before
 * `before`, oldest first, and answers how many: the bounded batch of the retention jobs (a table
 * with an index on that column and an `id`).
 */
import type { Knex } from "knex";

export async function deleteOldest(
  knex: Knex,
  table: string,
  before: number,
  limit: number,
  column = "created_at",
): Promise<number> {
  const ids = await knex(table).where(column, "<", before).orderBy(column).limit(limit).pluck("id");
  return ids.length === 0 ? 0 : knex(table).whereIn("id", ids).del();
}
