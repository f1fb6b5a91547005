/**
 * At most 100 deliveries per second per endpoint, across every instance (the API reference, "Limits"). A
 * sliding log of send times per endpoint: a send is allowed when fewer than the limit were allowed
 * in the window before it. With Redis it is one sorted set per endpoint, changed by a script that
 * reads Redis's clock, so every instance counts the same sends by the same clock; without Redis
 * (one instance) the log is in memory. If Redis stops answering, each instance falls back to its
 * own log rather than stopping deliveries.
 *
 * Written here because rate-limiter-flexible (used for the API's limits) counts fixed windows,
 * which let twice the limit through around a window's edge. The window is a little longer than a
 * second (1.2 s) so that the small delays between allowing a send and its arrival cannot crowd
 * more than 100 arrivals into any second at the receiver.
 */
import crypto from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";

export const DELIVERIES_PER_WINDOW = 100;
export const DELIVERY_WINDOW_MS = 1_200;

export interface DeliveryRate {
  /** 0 when a send to `endpointId` may go now (and is counted); else how many ms to wait. */
  reserve(endpointId: string): Promise<number>;
}

const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now + 1)
`;

interface Limits {
  limit: number;
  windowMs: number;
}

const DEFAULT_LIMITS: Limits = { limit: DELIVERIES_PER_WINDOW, windowMs: DELIVERY_WINDOW_MS };

/** The log in this process: exact for one instance. */
export function memoryDeliveryRate(
  now: () => number = Date.now,
  limits: Limits = DEFAULT_LIMITS,
): DeliveryRate {
  const logs = new Map<string, number[]>();
  return {
    async reserve(endpointId) {
      const at = now();
      const log = (logs.get(endpointId) ?? []).filter((sent) => sent > at - limits.windowMs);
      if (log.length < limits.limit) {
        log.push(at);
        logs.set(endpointId, log);
        return 0;
      }
      logs.set(endpointId, log);
      return Math.max(1, (log[0] as number) + limits.windowMs - at + 1);
    },
  };
}

/** The log in Redis, shared by every instance; this instance's own log while Redis is away. */
export function redisDeliveryRate(
  redis: Redis,
  logger: Logger,
  limits: Limits = DEFAULT_LIMITS,
): DeliveryRate {
  const fallback = memoryDeliveryRate(Date.now, limits);
  return {
    async reserve(endpointId) {
      try {
        const wait = await redis.eval(
          SCRIPT,
          1,
          `sv:webhook-rate:${endpointId}`,
          limits.limit,
          limits.windowMs,
          crypto.randomUUID(),
        );
        return Number(wait);
      } catch (error) {
        logger.warn({ err: error }, "webhook rate limit: Redis unavailable, counting locally");
        return fallback.reserve(endpointId);
      }
    },
  };
}
