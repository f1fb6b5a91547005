/**
 * The channels that carry "site X changed" between instances sharing a store: Redis pub/sub when
 * REDIS_URL is set, else PostgreSQL LISTEN/NOTIFY on PostgreSQL, else none beyond this process.
 *
 * A channel that cannot hear (not yet subscribed, connection lost) says so through `connected`,
 * keeps reconnecting on its own, and emits "*" each time it is subscribed again, so the cache
 * forgets whatever it may have missed. Publishing never throws: the write it reports has already
 * committed, and this instance hears of it at once whatever the network does.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Redis } from "ioredis";
import pg from "pg";
import type { Logger } from "pino";
import type { Settings } from "../settings.ts";
import {
  ALL_SITES,
  DEFAULT_SITE_CACHE_TTL_MS,
  localChannel,
  type SiteChangeChannel,
} from "./site-cache.ts";

export const REDIS_SITE_CHANNEL = "sitevoice:site-changed";
export const POSTGRES_SITE_CHANNEL = "sitevoice_site_changed";
/** How the LISTEN connection names itself in pg_stat_activity. */
export const POSTGRES_LISTENER_NAME = "sitevoice-site-changes";

/** With a channel between instances the TTL only catches what it lost; it can be long. */
export const SHARED_CHANNEL_TTL_MS = 5 * 60_000;
/** Only this process hears its changes; others writing the same store (the CLI) rely on this. */
export const LOCAL_CHANNEL_TTL_MS = DEFAULT_SITE_CACHE_TTL_MS;

/** How long start-up waits for the first subscription before going on without it (uncached). */
export const STARTUP_WAIT_MS = 3_000;

/** Bounds connecting, each PostgreSQL query, and saying goodbye on close. */
const TIMEOUT_MS = 5_000;
const RECONNECT_MIN_MS = 100;
/** Reconnect attempts never wait longer than this: reads go to the store until then. */
const RECONNECT_MAX_MS = 5_000;

export interface ChannelOptions {
  /** How long to wait for the first subscription; the channel keeps trying afterwards. */
  startupWaitMs?: number;
}

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

/** A change this instance applied but could not announce: the others rely on their TTL. */
function publishFailed(logger: Logger, err: unknown, siteId: string) {
  logger.warn(
    { err: message(err), siteId },
    "could not publish a site change; other instances see it when their cache expires",
  );
}

/** Listeners of one channel. */
function fanOut() {
  const listeners: ((siteId: string) => void)[] = [];
  return {
    add: (listener: (siteId: string) => void) => void listeners.push(listener),
    emit: (siteId: string) => {
      for (const listener of listeners) listener(siteId);
    },
  };
}

/** Resolves when `promise` does or after `ms`, whichever is first; never rejects. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  const timer = new AbortController();
  try {
    await Promise.race([
      promise.catch(() => undefined),
      delay(ms, undefined, { signal: timer.signal, ref: false }),
    ]);
  } finally {
    timer.abort();
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Redis pub/sub: publishes on `redis`, listens on a connection of its own (a subscribed
 * connection can do nothing else). ioredis reconnects it; every "ready" subscribes again.
 */
export async function redisChannel(
  redis: Redis,
  logger: Logger,
  options: ChannelOptions = {},
): Promise<SiteChangeChannel> {
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
    subscriber.subscribe(REDIS_SITE_CHANNEL).then(
      () => {
        if (closed || mine !== session) return;
        connected = true;
        listeners.emit(ALL_SITES);
        firstSubscribed();
        if (lost) logger.info("site change channel (Redis) subscribed; sites are cached again");
        lost = false;
      },
      (err: unknown) => {
        // A connection lost meanwhile is reported by "close"; the next "ready" tries again.
        if (!closed && mine === session) {
          logger.warn({ err: message(err) }, "could not subscribe to site changes");
        }
      },
    );
  });
  const down = () => {
    session++;
    if (!connected || closed) return;
    connected = false;
    lost = true;
    logger.warn("site change channel (Redis) lost; sites are read uncached until it is back");
  };
  subscriber.on("close", down);
  subscriber.on("end", down);
  // The service's own client already reports Redis trouble at warn level.
  subscriber.on("error", (err: Error) => logger.debug({ err: err.message }, "redis subscriber"));
  subscriber.on("message", (channel: string, siteId: string) => {
    if (channel === REDIS_SITE_CHANNEL) listeners.emit(siteId);
  });

  await within(subscribedOnce, options.startupWaitMs ?? STARTUP_WAIT_MS);
  if (!connected) {
    lost = true;
    logger.warn("site change channel (Redis) not subscribed yet; sites are read uncached");
  }

  return {
    get connected() {
      return connected;
    },
    async publish(siteId) {
      listeners.emit(siteId);
      try {
        await redis.publish(REDIS_SITE_CHANNEL, siteId);
      } catch (err) {
        publishFailed(logger, err, siteId);
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

/**
 * PostgreSQL LISTEN/NOTIFY on a connection of its own (a pooled one would stop listening when
 * returned). After it errors or ends it is opened again with backoff until `close()`.
 */
export async function postgresChannel(
  connectionString: string,
  logger: Logger,
  options: ChannelOptions = {},
): Promise<SiteChangeChannel> {
  const listeners = fanOut();
  /** The client that is connected and listening; undefined while there is none. */
  let listening: pg.Client | undefined;
  let closed = false;
  let lost = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const open = (name: string) =>
    new pg.Client({
      connectionString,
      application_name: name,
      connectionTimeoutMillis: TIMEOUT_MS,
      // A hung query must not hold a write request (publish) or the reconnect loop forever.
      query_timeout: TIMEOUT_MS,
      keepAlive: true,
    });

  const reconnectLater = () => {
    if (closed || retry !== undefined) return;
    const wait = Math.min(RECONNECT_MIN_MS * 2 ** failures++, RECONNECT_MAX_MS);
    retry = setTimeout(() => {
      retry = undefined;
      void listen();
    }, wait);
    retry.unref();
  };

  async function listen(): Promise<void> {
    const client = open(POSTGRES_LISTENER_NAME);
    let gone = false;
    const drop = (err?: unknown) => {
      if (gone) return;
      gone = true;
      void client.end().catch(() => undefined);
      if (listening === client) {
        listening = undefined;
        lost = true;
        logger.warn(
          { err: err === undefined ? undefined : message(err) },
          "site change channel (PostgreSQL) lost; sites are read uncached until it is back",
        );
      } else if (err !== undefined) {
        logger.debug({ err: message(err) }, "site change channel (PostgreSQL) not connected");
      }
      reconnectLater();
    };
    client.on("error", drop);
    client.on("end", () => drop());
    client.on("notification", (note) => {
      if (note.channel === POSTGRES_SITE_CHANNEL && note.payload) listeners.emit(note.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${POSTGRES_SITE_CHANNEL}`);
    } catch (err) {
      drop(err);
      return;
    }
    if (gone) return;
    if (closed) {
      gone = true;
      await within(client.end(), TIMEOUT_MS);
      return;
    }
    listening = client;
    failures = 0;
    listeners.emit(ALL_SITES);
    if (lost) logger.info("site change channel (PostgreSQL) listening; sites are cached again");
    lost = false;
  }

  const notify = async (client: pg.Client, siteId: string) => {
    await client.query("SELECT pg_notify($1, $2)", [POSTGRES_SITE_CHANNEL, siteId]);
  };

  /** For when the listening connection is down: one connection for one NOTIFY. */
  const notifyOnce = async (siteId: string) => {
    const client = open(`${POSTGRES_LISTENER_NAME}-publish`);
    client.on("error", () => undefined); // the awaited calls below report it
    try {
      await client.connect();
      await notify(client, siteId);
    } finally {
      await within(client.end(), TIMEOUT_MS);
    }
  };

  await within(listen(), options.startupWaitMs ?? STARTUP_WAIT_MS);
  if (listening === undefined) {
    lost = true;
    logger.warn("site change channel (PostgreSQL) not listening yet; sites are read uncached");
  }

  return {
    get connected() {
      return listening !== undefined;
    },
    async publish(siteId) {
      listeners.emit(siteId);
      try {
        const client = listening;
        try {
          if (client === undefined) throw new Error("not listening");
          await notify(client, siteId);
        } catch {
          await notifyOnce(siteId);
        }
      } catch (err) {
        publishFailed(logger, err, siteId);
      }
    },
    subscribe: listeners.add,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      retry = undefined;
      const client = listening;
      listening = undefined;
      if (client !== undefined) await within(client.end(), TIMEOUT_MS);
    },
  };
}
