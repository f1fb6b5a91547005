/**
 * Rate limits as HTTP shows them: a counted request answers with RateLimit-Limit, -Remaining and
 * -Reset; a refused one (429) carries them too, from the error's details, with Retry-After.
 */
import type { Response } from "express";
import type { RateLimiter, RateLimitState } from "../limits/rate-limiter.ts";

/**
 * Counts `points` (one request, by default; a batch counts each of its items) for `key` against
 * `limiter` and sets the RateLimit-* headers on `res`.
 */
export async function consumeLimit(
  limiter: RateLimiter,
  key: string,
  res: Response,
  points = 1,
): Promise<void> {
  const state = await limiter.consume(key, points);
  if (!res.headersSent) {
    for (const [name, value] of Object.entries(rateLimitHeaders(state))) res.setHeader(name, value);
  }
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    "RateLimit-Limit": String(state.limit),
    "RateLimit-Remaining": String(state.remaining),
    "RateLimit-Reset": String(state.resetSeconds),
  };
}
