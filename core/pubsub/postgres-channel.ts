/**
 * A channel (channel.ts) on PostgreSQL LISTEN/NOTIFY, used on PostgreSQL without Redis. Like
 * every channel it says when it cannot hear (`connected`), reconnects on its own with backoff,
 * emits "*" each time it listens again, and never throws on publish.
 */
import pg from "pg";
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

const RECONNECT_MIN_MS = 100;
/** Reconnect attempts never wait longer than this: reads go to the store until then. */
const RECONNECT_MAX_MS = 5_000;

/**
 * PostgreSQL LISTEN/NOTIFY on a connection of its own (a pooled one would stop listening when
 * returned). After it errors or ends it is opened again with backoff until `close()`.
 */
export async function postgresChannel(
  connectionString: string,
  topic: Topic,
  logger: Logger,
  options: ChannelOptions = {},
): Promise<Channel> {
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
    const client = open(topic.listenerName);
    let gone = false;
    const drop = (err?: unknown) => {
      if (gone) return;
      gone = true;
      void client.end().catch(() => undefined);
      if (listening === client) {
        listening = undefined;
        lost = true;
        logger.warn(
          { err: err === undefined ? undefined : messageOf(err) },
          `${topic.label} (PostgreSQL) lost; ${topic.whileLost} until it is back`,
        );
      } else if (err !== undefined) {
        logger.debug({ err: messageOf(err) }, `${topic.label} (PostgreSQL) not connected`);
      }
      reconnectLater();
    };
    client.on("error", drop);
    client.on("end", () => drop());
    client.on("notification", (note) => {
      if (note.channel === topic.postgres && note.payload) listeners.emit(note.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${topic.postgres}`);
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
    listeners.emit(MAYBE_MISSED);
    if (lost) logger.info(`${topic.label} (PostgreSQL) listening again`);
    lost = false;
  }

  /** The last NOTIFY sent on the listening connection: the next waits for it (one at a time). */
  let notifying: Promise<unknown> = Promise.resolve();
  const notify = async (client: pg.Client, message: string) => {
    const sent = notifying.then(() =>
      client.query("SELECT pg_notify($1, $2)", [topic.postgres, message]),
    );
    notifying = sent.catch(() => undefined);
    await sent;
  };

  /** For when the listening connection is down: one connection for one NOTIFY. */
  const notifyOnce = async (message: string) => {
    const client = open(`${topic.listenerName}-publish`);
    client.on("error", () => undefined); // the awaited calls below report it
    try {
      await client.connect();
      await notify(client, message);
    } finally {
      await within(client.end(), TIMEOUT_MS);
    }
  };

  await within(listen(), options.startupWaitMs ?? STARTUP_WAIT_MS);
  if (listening === undefined) {
    lost = true;
    logger.warn(`${topic.label} (PostgreSQL) not listening yet; ${topic.whileLost}`);
  }

  return {
    get connected() {
      return listening !== undefined;
    },
    async publish(message) {
      listeners.emit(message);
      try {
        const client = listening;
        try {
          if (client === undefined) throw new Error("not listening");
          await notify(client, message);
        } catch {
          await notifyOnce(message);
        }
      } catch (err) {
        publishFailed(logger, topic, err, message);
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
