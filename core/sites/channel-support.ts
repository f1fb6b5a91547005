/**
 * What the Redis and the PostgreSQL site change channels share: their options and start-up wait,
 * the bound on each network step, the listeners of a channel, waiting without failing, and the
 * warning for a change that could not be announced.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import { messageOf } from "../util/message-of.ts";

/** How long start-up waits for the first subscription before going on without it (uncached). */
export const STARTUP_WAIT_MS = 3_000;

/** Bounds connecting, each PostgreSQL query, and saying goodbye on close. */
export const TIMEOUT_MS = 5_000;

export interface ChannelOptions {
  /** How long to wait for the first subscription; the channel keeps trying afterwards. */
  startupWaitMs?: number;
}

/** A change this instance applied but could not announce: the others rely on their TTL. */
export function publishFailed(logger: Logger, err: unknown, siteId: string) {
  logger.warn(
    { err: messageOf(err), siteId },
    "could not publish a site change; other instances see it when their cache expires",
  );
}

/** Listeners of one channel. */
export function fanOut() {
  const listeners: ((siteId: string) => void)[] = [];
  return {
    add: (listener: (siteId: string) => void) => void listeners.push(listener),
    emit: (siteId: string) => {
      for (const listener of listeners) listener(siteId);
    },
  };
}

/** Resolves when `promise` does or after `ms`, whichever is first; never rejects. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
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
