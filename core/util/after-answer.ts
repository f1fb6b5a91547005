/**
 * Work a request starts and does not wait for, so its answer goes out first: a mail, whose relay
 * may take a second, must not make the answer late, nor late only for some addresses (which would
 * tell who has an account). The work is tracked until it settles, so a stop waits for it; a
 * failure is logged, since the client who caused it has had its answer.
 */
import type { Logger } from "pino";
import { InFlight } from "./in-flight.ts";

export class AfterAnswer {
  readonly #running = new InFlight();

  constructor(private readonly logger: Logger) {}

  /** Starts `work` now without waiting for it; a failure is logged as `failed`, with `context`. */
  run(failed: string, context: Record<string, unknown>, work: () => Promise<unknown>): void {
    const done = Promise.resolve()
      .then(work)
      .then(
        () => undefined,
        (error: unknown) => this.logger.error({ err: error, ...context }, failed),
      );
    void this.#running.track(done);
  }

  /** Resolves once the work started so far has settled (a stop waits for it). */
  settled(): Promise<void> {
    return this.#running.settled();
  }
}
