/**
 * Work still running that a `close()` must wait for: promises are tracked until they settle.
 * The SQL connectors track their searches and the kills they send on a separate connection.
 */
export class InFlight {
  readonly #running = new Set<Promise<unknown>>();

  /** Tracks `work` until it settles and returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#running.add(work);
    const forget = () => this.#running.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Resolves once everything tracked so far has settled, whichever way. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }
}
