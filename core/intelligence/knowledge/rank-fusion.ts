/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): one ranking from several, each id
 * scoring Σ 1/(k + rank) over the lists that hold it (rank from 1). Used to merge the keyword
 * and the meaning (embeddings) search's rankings, whose scores are not comparable; only ranks
 * count. k = 60 is the paper's value: agreement between lists outweighs a single top rank.
 */

/** An id in the fused ranking, with its share of the best fused score. */
export interface FusedRank {
  id: string;
  /**
   * Σ 1/(k + rank) divided by the most an id can score (first in every list): 1 for an id
   * first in every list, about 1/n for one first in only one of n lists, less the lower it ranks.
   */
  score: number;
}

/** The ids of `lists` (each best first) in fused order; ties by id, in code-unit order. */
export function fuseRanks(lists: string[][], k = 60): FusedRank[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    const seen = new Set<string>();
    list.forEach((id, index) => {
      if (seen.has(id)) return;
      seen.add(id);
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  const best = lists.length / (k + 1);
  return [...scores.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, score]) => ({ id, score: score / best }));
}
