/**
 * One search on one pooled connection, as both SQL connectors run it: begin a read-only
 * transaction, run the statement, then ROLLBACK whatever happened. A connection whose ROLLBACK
 * failed is broken and must not go back to the pool: `reusable()` says which.
 */
export interface ReadOnlyRound<T> {
  /** The statement's result, or the first failure (the statement's before the rollback's). */
  done: Promise<T>;
  /** True once the ROLLBACK succeeded. */
  reusable(): boolean;
}

export function readOnlyRound<T>(steps: {
  begin(): Promise<unknown>;
  run(): Promise<T>;
  rollback(): Promise<unknown>;
}): ReadOnlyRound<T> {
  let reusable = false;
  const done = (async () => {
    await steps.begin();
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await steps.run() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    try {
      await steps.rollback();
      reusable = true;
    } catch (error) {
      if (outcome.ok) outcome = { ok: false, error };
    }
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  })();
  return { done, reusable: () => reusable };
}
