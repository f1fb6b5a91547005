/**
 * The channels that carry "site X changed" between instances sharing a store: Redis pub/sub when
 * REDIS_URL is set, else PostgreSQL LISTEN/NOTIFY on PostgreSQL, else none beyond this process.
 *
 * A channel that cannot hear (not yet subscribed, connection lost) says so through `connected`,
 * keeps reconnecting on its own, and emits "*" each time it is subscribed again, so the cache
 * forgets whatever it may have missed. Publishing never throws: the write it reports has already
 * committed, and this instance hears of it at once whatever the network does.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Settings } from "../settings.ts";
import { DEFAULT_SITE_CACHE_TTL_MS, localChannel, type SiteChangeChannel } from "./site-cache.ts";
import type { ChannelOptions } from "./channel-support.ts";
import { postgresChannel } from "./postgres-channel.ts";
import { redisChannel } from "./redis-channel.ts";

/** With a channel between instances the TTL only catches what it lost; it can be long. */
export const SHARED_CHANNEL_TTL_MS = 5 * 60_000;
/** Only this process hears its changes; others writing the same store (the CLI) rely on this. */
export const LOCAL_CHANNEL_TTL_MS = DEFAULT_SITE_CACHE_TTL_MS;

/** The channel to use, and the cache TTL that goes with it. */
export interface SiteChanges {
  channel: SiteChangeChannel;
  ttlMs: number;
}

/**
 * Redis when REDIS_URL is set (publishing through `redis`, the service's client), else PostgreSQL
 * LISTEN/NOTIFY when the store is PostgreSQL, else only this process.
 */
export async function siteChangeChannel(
  settings: Pick<Readonly<Settings>, "redisUrl" | "database">,
  options: ChannelOptions & { redis?: Redis; logger: Logger },
): Promise<SiteChanges> {
  const { redis, logger, ...wait } = options;
  if (settings.redisUrl !== undefined) {
    if (redis === undefined) throw new Error("REDIS_URL is set but no Redis client was given");
    return { channel: await redisChannel(redis, logger, wait), ttlMs: SHARED_CHANNEL_TTL_MS };
  }
  if (settings.database.client === "postgres") {
    return {
      channel: await postgresChannel(settings.database.url, logger, wait),
      ttlMs: SHARED_CHANNEL_TTL_MS,
    };
  }
  return { channel: localChannel(), ttlMs: LOCAL_CHANNEL_TTL_MS };
}
