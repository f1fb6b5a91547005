/**
 * Fixed-window rate limits (rate-limiter-flexible): in process for one instance, in Redis when
 * REDIS_URL is set so every instance counts against the same budget. If Redis stops answering the
 * limiter falls back to memory rather than refusing traffic.
 */
import type { Response } from "express";
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

export interface RateLimiter {
  /**
   * Counts one request for `key`. Sets RateLimit-* headers on `res` when given; throws
   * 429 rate_limited with Retry-After when over the limit.
   */
  consume(key: string, res?: Response): Promise<void>;
}

export type RateLimiterFactory = (spec: LimitSpec) => RateLimiter;

function wrap(limiter: RateLimiterAbstract, spec: LimitSpec): RateLimiter {
  const setHeaders = (res: Response | undefined, result: RateLimiterRes) => {
    if (res === undefined || res.headersSent) return;
    res.setHeader("RateLimit-Limit", String(spec.points));
    res.setHeader("RateLimit-Remaining", String(Math.max(0, result.remainingPoints)));
    res.setHeader("RateLimit-Reset", String(Math.ceil(result.msBeforeNext / 1000)));
  };
  return {
    async consume(key, res) {
      try {
        setHeaders(res, await limiter.consume(key));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        setHeaders(res, rejection);
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
