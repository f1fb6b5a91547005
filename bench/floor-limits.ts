/**
 * The rate limits and request ids the floors count and send, as the service does (it counts in
 * memory on one instance too, core/limits/rate-limiter.ts): a fixed window per key, and the
 * RateLimit-* headers and X-Request-Id of every answer. Over a limit is a 429, which no
 * benchmark run should see.
 */
import crypto from "node:crypto";

export class FixedWindow {
  readonly #counts = new Map<string, { used: number; resetAt: number }>();

  constructor(
    readonly points: number,
    readonly seconds: number,
  ) {}

  /** Counts one request for `key`: its RateLimit-* headers, or undefined when over the limit. */
  consume(key: string, now = Date.now()): Record<string, string> | undefined {
    let window = this.#counts.get(key);
    if (window === undefined || now >= window.resetAt) {
      window = { used: 0, resetAt: now + this.seconds * 1000 };
      this.#counts.set(key, window);
    }
    window.used += 1;
    if (window.used > this.points) return undefined;
    return {
      "RateLimit-Limit": String(this.points),
      "RateLimit-Remaining": String(this.points - window.used),
      "RateLimit-Reset": String(Math.ceil((window.resetAt - now) / 1000)),
    };
  }
}

/** A request id, as the service gives every answer one (its own are ULIDs). */
export const requestId = (): string => `req_${crypto.randomUUID()}`;
