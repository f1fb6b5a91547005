/**
 * Deletes up to `limit` rows of `table` created before `before`, oldest first, and answers how
 * many: the bounded batch of the retention job (a table with a `created_at` index and an `id`).
 */
import type { Knex } from "knex";

export async function deleteOldest(
  knex: Knex,
  table: string,
  before: number,
  limit: number,
): Promise<number> {
  const ids = await knex(table)
    .where("created_at", "<", before)
    .orderBy("created_at")
    .limit(limit)
    .pluck("id");
  return ids.length === 0 ? 0 : knex(table).whereIn("id", ids).del();
}
