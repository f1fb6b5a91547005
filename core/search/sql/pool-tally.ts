/**
 * The counts a SQL connector's pool reports (PoolStats), kept from what the connector does itself
 * (requests, check-outs, returns, discards) and from the driver's public pool events (connections
 * made and dropped), never from a driver's private fields: those change between driver versions
 * without notice, and a wrong count would hide the very leak the counts are there to show.
 */
import type { PoolStats } from "./sql-adapter.ts";
import type { PoolEvents } from "./sql-driver.ts";

export class PoolTally implements PoolEvents {
  /** Connections made and not yet dropped or discarded. */
  readonly #open = new Set<object>();
  /** Those of #open checked out and not yet given back. */
  readonly #busy = new Set<object>();
  /** Requests the pool has not answered yet. */
  #waiting = 0;
  #closed = false;
  #ended = false;

  opened(connection: object): void {
    if (!this.#ended) this.#open.add(connection);
  }

  /** Dropped by the pool, or discarded by the connector. */
  removed(connection: object): void {
    this.#open.delete(connection);
    this.#busy.delete(connection);
  }

  /**
   * A request for a connection; the function returned says the pool answered it (with a
   * connection or a failure, whether or not the caller still waits). Calling it again does
   * nothing.
   */
  asked(): () => void {
    this.#waiting += 1;
    let answered = false;
    return () => {
      if (answered) return;
      answered = true;
      this.#waiting -= 1;
    };
  }

  /** A connection handed out: it is open, whether or not the pool said it made it. */
  checkedOut(connection: object): void {
    this.opened(connection);
    if (this.#open.has(connection)) this.#busy.add(connection);
  }

  /** A connection given back to the pool for reuse. */
  checkedIn(connection: object): void {
    this.#busy.delete(connection);
  }

  /** The connector takes no more requests. */
  closing(): void {
    this.#closed = true;
  }

  /** The pool has ended every connection. */
  ended(): void {
    this.#closed = true;
    this.#ended = true;
    this.#open.clear();
    this.#busy.clear();
  }

  stats(): PoolStats {
    return {
      total: this.#open.size,
      idle: this.#open.size - this.#busy.size,
      waiting: this.#waiting,
      closed: this.#closed,
    };
  }
}
