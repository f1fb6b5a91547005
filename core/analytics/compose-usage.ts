/**
 * The event bus and what listens to its usage events, made for the composition root
 * (core/compose.ts) in the order they must close: the threshold watch first (a check under way
 * still records its events), then the bus (every acknowledged event stored and announced), then
 * the live stream (what the bus announced last still published), then the stream's channel.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { EventBus, type EventBusOptions } from "../events/event-bus.ts";
import { openChannel } from "../pubsub/open-channel.ts";
import type { KeyRing } from "../security/secret-box.ts";
import type { Settings } from "../settings.ts";
import type { Store } from "../store/store.ts";
import { ThresholdWatch } from "./threshold-watch.ts";
import { UsageStream, USAGE_STORED } from "./usage-stream.ts";
import { UsageThresholds } from "./usage-thresholds.ts";

export async function composeUsage(
  settings: Readonly<Settings>,
  parts: {
    store: Store;
    ring: KeyRing;
    redis?: Redis;
    logger: Logger;
    /** Where each closer goes; the caller runs them last first. */
    closers: (() => Promise<void> | void)[];
    onRecorded: EventBusOptions["onRecorded"];
  },
): Promise<{ events: EventBus; usageStream: UsageStream; usageThresholds: UsageThresholds }> {
  const { store, ring, redis, logger, closers } = parts;
  const events = new EventBus(store, ring, { logger, onRecorded: parts.onRecorded });
  const usageChannel = await openChannel(settings, USAGE_STORED, { redis, logger });
  closers.push(() => usageChannel.channel.close());
  const usageStream = new UsageStream({ store, events, ...usageChannel, logger });
  closers.push(() => usageStream.close());
  closers.push(() => events.close());
  const usageThresholds = new UsageThresholds({
    store,
    events,
    planMinutes: settings.planMinutes,
  });
  const thresholdWatch = new ThresholdWatch(usageThresholds, { events, store, logger });
  closers.push(() => thresholdWatch.close());
  return { events, usageStream, usageThresholds };
}
