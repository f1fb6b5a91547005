/**
 * Runs `step` a bounded batch at a time until a batch changes fewer rows than it may, and answers
 * how many it changed in all: the loop of every retention job, so no statement locks or reads
 * more than `batch` rows however much has piled up.
 */
export async function inBatches(
  step: (limit: number) => Promise<number>,
  batch: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const changed = await step(batch);
    total += changed;
    if (changed < batch) return total;
  }
}
