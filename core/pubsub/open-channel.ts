/** Opens the channel of a topic on what the installation has (core/pubsub/channel.ts). */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Settings } from "../settings.ts";
import { localChannel, type Channel, type Topic } from "./channel.ts";
import type { ChannelOptions } from "./channel-support.ts";
import { postgresChannel } from "./postgres-channel.ts";
import { redisChannel } from "./redis-channel.ts";

/**
 * The channel of `topic`: Redis when REDIS_URL is set (publishing through `redis`, the service's
 * client), else PostgreSQL LISTEN/NOTIFY when the store is PostgreSQL, else only this process.
 * `shared` says whether other instances hear it.
 */
export async function openChannel(
  settings: Pick<Readonly<Settings>, "redisUrl" | "database">,
  topic: Topic,
  options: ChannelOptions & { redis?: Redis; logger: Logger },
): Promise<{ channel: Channel; shared: boolean }> {
  const { redis, logger, ...wait } = options;
  if (settings.redisUrl !== undefined) {
    if (redis === undefined) throw new Error("REDIS_URL is set but no Redis client was given");
    return { channel: await redisChannel(redis, topic, logger, wait), shared: true };
  }
  if (settings.database.client === "postgres") {
    return {
      channel: await postgresChannel(settings.database.url, topic, logger, wait),
      shared: true,
    };
  }
  return { channel: localChannel(), shared: false };
}
