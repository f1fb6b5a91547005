/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): one ranking from several, each id
 * scoring Σ 1/(k + rank) over the lists that hold it (rank from 1). Used to merge the keyword
 * and the meaning (embeddings) search's rankings, whose scores are not comparable; only ranks
 * count. k = 60 is the paper's value: agreement between lists outweighs a single top rank.
 */

/** The ids of `lists` (each best first) in fused order; ties by id, in code-unit order. */
export function fuseRanks(lists: string[][], k = 60): string[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    const seen = new Set<string>();
    list.forEach((id, index) => {
      if (seen.has(id)) return;
      seen.add(id);
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  return [...scores.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([id]) => id);
}
