/**
 * One page of a keyset-paginated list. The store is asked for `limit + 1` rows: the extra row,
 * when it comes, shows that another page follows, whose cursor is the key of this page's last row.
 */
export interface KeysetPage<V, C> {
  items: V[];
  /** The cursor of the next page; absent on the last page. */
  next?: C;
}

export function keysetPage<R, V, C>(
  rows: readonly R[],
  limit: number,
  view: (row: R) => V,
  cursorOf: (last: R) => C,
): KeysetPage<V, C> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => view(row)),
    next: rows.length > limit && last !== undefined ? cursorOf(last) : undefined,
  };
}
