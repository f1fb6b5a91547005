/** The service's one Redis client (rate limits, channels, webhook limits), when REDIS_URL is set. */
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Settings } from "./settings.ts";

/** The Redis client of REDIS_URL, if set: fails fast rather than queueing while Redis is down. */
export function connectRedis(settings: Readonly<Settings>, logger: Logger): Redis | undefined {
  if (settings.redisUrl === undefined) return undefined;
  const redis = new Redis(settings.redisUrl, {
    lazyConnect: false,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: false,
  });
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis error"));
  return redis;
}
