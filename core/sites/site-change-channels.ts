/**
 * The channel that carries "site X changed" between instances sharing a store (core/pubsub): its
 * messages are site ids, and `ALL_SITES` when changes may have been missed, so the cache forgets
 * everything. With a channel between instances the cache's TTL only catches what the channel
 * lost, so it is long; within one process it is short, for other processes writing the same
 * store (the CLI).
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Settings } from "../settings.ts";
import type { ChannelOptions } from "../pubsub/channel-support.ts";
import type { Topic } from "../pubsub/channel.ts";
import { openChannel } from "../pubsub/open-channel.ts";
import { DEFAULT_SITE_CACHE_TTL_MS, type SiteChangeChannel } from "./site-cache.ts";

export const SHARED_CHANNEL_TTL_MS = 5 * 60_000;
export const LOCAL_CHANNEL_TTL_MS = DEFAULT_SITE_CACHE_TTL_MS;

export const SITE_CHANGES: Topic = {
  redis: "sitevoice:site-changed",
  postgres: "sitevoice_site_changed",
  listenerName: "sitevoice-site-changes",
  label: "site change channel",
  whileLost: "sites are read uncached",
};

/** The channel to use, and the cache TTL that goes with it. */
export interface SiteChanges {
  channel: SiteChangeChannel;
  ttlMs: number;
}

export async function siteChangeChannel(
  settings: Pick<Readonly<Settings>, "redisUrl" | "database">,
  options: ChannelOptions & { redis?: Redis; logger: Logger },
): Promise<SiteChanges> {
  const { channel, shared } = await openChannel(settings, SITE_CHANGES, options);
  return { channel, ttlMs: shared ? SHARED_CHANNEL_TTL_MS : LOCAL_CHANNEL_TTL_MS };
}
