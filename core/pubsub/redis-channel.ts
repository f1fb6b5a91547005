/**
 * A channel (channel.ts) on Redis pub/sub, used when REDIS_URL is set. Like every channel it says
 * when it cannot hear (`connected`), keeps reconnecting on its own (ioredis does), emits "*" each
 * time it is subscribed again, and never throws on publish.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { messageOf } from "../util/message-of.ts";
import { MAYBE_MISSED, type Channel, type Topic } from "./channel.ts";
import {
  fanOut,
  publishFailed,
  STARTUP_WAIT_MS,
  TIMEOUT_MS,
  within,
  type ChannelOptions,
} from "./channel-support.ts";

/**
 * Redis pub/sub: publishes on `redis`, listens on a connection of its own (a subscribed
 * connection can do nothing else). ioredis reconnects it; every "ready" subscribes again.
 */
export async function redisChannel(
  redis: Redis,
  topic: Topic,
  logger: Logger,
  options: ChannelOptions = {},
): Promise<Channel> {
  const listeners = fanOut();
  // Subscribing is done here on each "ready", so that "*" follows a subscription confirmed by
  // Redis rather than one ioredis merely resent.
  const subscriber = redis.duplicate({
    lazyConnect: false,
    autoResubscribe: false,
    enableOfflineQueue: false,
  });
  let connected = false;
  let closed = false;
  let lost = false;
  /** Bumped on every ready and close: a subscription confirmed late belongs to a dead session. */
  let session = 0;
  let firstSubscribed!: () => void;
  const subscribedOnce = new Promise<void>((resolve) => (firstSubscribed = resolve));

  subscriber.on("ready", () => {
    const mine = ++session;
    subscriber.subscribe(topic.redis).then(
      () => {
        if (closed || mine !== session) return;
        connected = true;
        listeners.emit(MAYBE_MISSED);
        firstSubscribed();
        if (lost) logger.info(`${topic.label} (Redis) subscribed again`);
        lost = false;
      },
      (err: unknown) => {
        // A connection lost meanwhile is reported by "close"; the next "ready" tries again.
        if (!closed && mine === session) {
          logger.warn({ err: messageOf(err) }, `could not subscribe to the ${topic.label}`);
        }
      },
    );
  });
  const down = () => {
    session++;
    if (!connected || closed) return;
    connected = false;
    lost = true;
    logger.warn(`${topic.label} (Redis) lost; ${topic.whileLost} until it is back`);
  };
  subscriber.on("close", down);
  subscriber.on("end", down);
  // The service's own client already reports Redis trouble at warn level.
  subscriber.on("error", (err: Error) => logger.debug({ err: err.message }, "redis subscriber"));
  subscriber.on("message", (channel: string, message: string) => {
    if (channel === topic.redis) listeners.emit(message);
  });

  await within(subscribedOnce, options.startupWaitMs ?? STARTUP_WAIT_MS);
  if (!connected) {
    lost = true;
    logger.warn(`${topic.label} (Redis) not subscribed yet; ${topic.whileLost}`);
  }

  return {
    get connected() {
      return connected;
    },
    async publish(message) {
      listeners.emit(message);
      try {
        await redis.publish(topic.redis, message);
      } catch (err) {
        publishFailed(logger, topic, err, message);
      }
    },
    subscribe: listeners.add,
    async close() {
      if (closed) return;
      closed = true;
      connected = false;
      if (subscriber.status === "ready") {
        await within(subscriber.quit(), TIMEOUT_MS);
      }
      subscriber.disconnect();
    },
  };
}
