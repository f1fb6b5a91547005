/**
 * Fixed-window rate limits (rate-limiter-flexible): in process for one instance, in Redis when
 * REDIS_URL is set so every instance counts against the same budget. If Redis stops answering the
 * limiter falls back to memory rather than refusing traffic. The HTTP layer turns what a count
 * leaves into RateLimit-* headers (http/rate-limit-headers.ts); jobs can count without it.
 */
import type { Redis } from "ioredis";
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import { errors } from "../errors.ts";

export interface LimitSpec {
  /** Prefix of the counter keys, one per limit (`api-key`, `query-site`, …). */
  name: string;
  /** Requests allowed per window. */
  points: number;
  /** Window length in seconds. */
  durationSeconds: number;
}

/** What is left of a limit's window after a request was counted. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window starts again. */
  resetSeconds: number;
}

export interface RateLimiter {
  /**
   * Counts `points` (one request, by default) for `key` and tells what is left; throws 429
   * rate_limited, whose details carry `retry_after_seconds`, `limit` and `window_seconds`, when
   * over the limit. A refused count of several points takes none of them (a batch larger than what
   * is left leaves what is left to a smaller one).
   */
  consume(key: string, points?: number): Promise<RateLimitState>;
}

export type RateLimiterFactory = (spec: LimitSpec) => RateLimiter;

/** One limiter for each of a route module's named limits. */
export function limitersFor<K extends string>(
  factory: RateLimiterFactory,
  specs: Readonly<Record<K, LimitSpec>>,
): Record<K, RateLimiter> {
  return Object.fromEntries(
    Object.entries<LimitSpec>(specs).map(([key, spec]) => [key, factory(spec)]),
  ) as Record<K, RateLimiter>;
}

function wrap(limiter: RateLimiterAbstract, spec: LimitSpec): RateLimiter {
  return {
    async consume(key, points = 1) {
      try {
        const result = await limiter.consume(key, points);
        return {
          limit: spec.points,
          remaining: Math.max(0, result.remainingPoints),
          resetSeconds: Math.ceil(result.msBeforeNext / 1000),
        };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        // The counter took the points all the same: give them back. A refused single point
        // leaves nothing to give back (the window was spent already), so it skips the call.
        if (points > 1) await limiter.reward(key, points).catch(() => undefined);
        throw errors.rateLimited(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), {
          limit: spec.points,
          window_seconds: spec.durationSeconds,
        });
      }
    },
  };
}

export function rateLimiterFactory(redis?: Redis): RateLimiterFactory {
  return (spec) => {
    const options = {
      keyPrefix: `sv:rl:${spec.name}`,
      points: spec.points,
      duration: spec.durationSeconds,
    };
    const memory = new RateLimiterMemory(options);
    if (redis === undefined) return wrap(memory, spec);
    return wrap(
      new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: memory }),
      spec,
    );
  };
}
