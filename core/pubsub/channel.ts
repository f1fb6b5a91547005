/**
 * A channel between the instances that share a store: a message published on one reaches the
 * listeners on every one, this one included. The site cache hears "site X changed" on one, the
 * live analytics stream "events were stored" on another. Redis pub/sub carries them when REDIS_URL
 * is set, PostgreSQL LISTEN/NOTIFY on PostgreSQL without it, else nothing beyond this process.
 *
 * Pub/sub delivers at most once: a channel that cannot hear says so through `connected`, and
 * emits `MAYBE_MISSED` each time it listens again, so what relies on it can catch up from the
 * store. Publishing never throws: what it reports has already been stored.
 */

export interface Channel {
  /** True while messages published anywhere reach this instance's listeners. */
  readonly connected: boolean;
  /** Sends `message` to every instance, this one included. Never throws. */
  publish(message: string): Promise<void>;
  /** `listener` receives each message, and `MAYBE_MISSED` whenever messages may have been lost. */
  subscribe(listener: (message: string) => void): void;
  close(): Promise<void>;
}

/** What listeners get each time the channel (re)subscribes: messages may have been missed. */
export const MAYBE_MISSED = "*";

/** What a channel carries, named for each transport, and how its log lines speak of it. */
export interface Topic {
  /** The Redis pub/sub channel. */
  redis: string;
  /** The PostgreSQL NOTIFY channel (an identifier). */
  postgres: string;
  /** How the LISTEN connection names itself in pg_stat_activity. */
  listenerName: string;
  /** For log lines: "site change channel". */
  label: string;
  /** What this instance does while the channel cannot hear: "sites are read uncached". */
  whileLost: string;
}

/** A channel within one process: enough for a single instance. */
export function localChannel(): Channel {
  const listeners: ((message: string) => void)[] = [];
  return {
    connected: true,
    async publish(message) {
      for (const listener of listeners) listener(message);
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    async close() {},
  };
}
