/**
 * What the Redis and the PostgreSQL channels share: their options and start-up wait,
 * the bound on each network step, the listeners of a channel, waiting without failing, and the
 * warning for a change that could not be announced.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import { messageOf } from "../util/message-of.ts";
import type { Topic } from "./channel.ts";

/** How long start-up waits for the first subscription before going on without it (uncached). */
export const STARTUP_WAIT_MS = 3_000;

/** Bounds connecting, each PostgreSQL query, and saying goodbye on close. */
export const TIMEOUT_MS = 5_000;

export interface ChannelOptions {
  /** How long to wait for the first subscription; the channel keeps trying afterwards. */
  startupWaitMs?: number;
}

/** A message this instance could not send: the others catch up when they next can. */
export function publishFailed(logger: Logger, topic: Topic, err: unknown, message: string) {
  logger.warn({ err: messageOf(err), message }, `could not publish on the ${topic.label}`);
}

/** Listeners of one channel. */
export function fanOut() {
  const listeners: ((message: string) => void)[] = [];
  return {
    add: (listener: (message: string) => void) => void listeners.push(listener),
    emit: (message: string) => {
      for (const listener of listeners) listener(message);
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
