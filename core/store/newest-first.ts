/**
 * The keyset order of the API's lists: newest first (`created_at`, then `id`, both descending),
 * a page starting after the last row of the one before it.
 */
import type { Knex } from "knex";

export interface NewestKey {
  created_at: number;
  id: string;
}

/** A decoded cursor of such a list: its last row's `created_at` and `id`. */
export const isNewestKey = (value: unknown): value is NewestKey =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as NewestKey).created_at === "number" &&
  typeof (value as NewestKey).id === "string";

/** `query` in that order, from after `before` when given; the caller adds the limit. */
export function newestFirst<Q extends Knex.QueryBuilder>(query: Q, before?: NewestKey): Q {
  if (before !== undefined) {
    query.where((w) =>
      w
        .where("created_at", "<", before.created_at)
        .orWhere((tie) => tie.where("created_at", before.created_at).where("id", "<", before.id)),
    );
  }
  return query.orderBy([
    { column: "created_at", order: "desc" },
    { column: "id", order: "desc" },
  ]) as Q;
}
