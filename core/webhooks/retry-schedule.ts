/**
 * When a failed delivery is tried again (the API reference, "Delivery semantics"): after 1 minute, then 5
 * minutes, 30 minutes, 2 hours, 6 hours and 12 hours, each delay counted from the attempt before
 * and lengthened by up to a tenth at random, so that receivers coming back from an outage are not
 * hit by every retry at once. Seven attempts fit in 24 hours; a delivery whose next attempt would
 * fall more than 24 hours after its first is abandoned.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const RETRY_DELAYS_MS: readonly number[] = [
  MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  6 * HOUR,
  12 * HOUR,
];

/** How long a delivery is tried, from its first attempt (or its creation, if never tried). */
export const RETRY_WINDOW_MS = 24 * HOUR;

/** The most a delay is lengthened by, as a fraction of it. */
export const RETRY_JITTER = 0.1;

/**
 * The time of the next attempt after `attempts` failed ones, the last at `lastAttemptAt`; or
 * undefined when the delivery is to be abandoned. `random` gives numbers in [0, 1).
 */
export function nextAttemptAt(
  attempts: number,
  firstAttemptAt: number,
  lastAttemptAt: number,
  random: () => number = Math.random,
): number | undefined {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return undefined;
  const next = lastAttemptAt + Math.round(delay * (1 + RETRY_JITTER * random()));
  return next - firstAttemptAt > RETRY_WINDOW_MS ? undefined : next;
}

/** The longest Retry-After honoured, in seconds: no retry is ever pushed beyond the window. */
const MAX_RETRY_AFTER_SECONDS = RETRY_WINDOW_MS / 1000;

/**
 * The wait a 429 or 503 asks for with its Retry-After (seconds, or an HTTP date), in
 * milliseconds from `now`; undefined when there is none or it cannot be read.
 */
export function retryAfterMs(
  value: string | string[] | undefined,
  now: number,
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === "") return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_RETRY_AFTER_SECONDS) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_SECONDS * 1000);
}
