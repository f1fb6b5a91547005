/**
 * The soak's load generator, a child process of its own (forked by soak.ts): open-loop at a fixed
 * rate. Request n is due at t0 + n / rate and is started then, whether or not earlier ones were
 * answered; only a cap on requests in flight stops it, and a start skipped for the cap counts as
 * an error (`missed`), so a run either held the rate or is no result. Requests go out through an
 * undici `Pool` of keep-alive connections, rotating through the pre-signed requests; an answer is
 * right when it is a 200 whose body contains the needle expected for that very request. Latency
 * runs from the moment a request was due, not from when it left, so a late start is not hidden.
 *
 *   harness → load: {type: "config", …LoadConfig}   load → harness: {type: "ready"}
 *   harness → load: {type: "run", seconds, intervalSeconds}
 *   load → harness: {type: "interval", stats} at the end of every interval, the last one once
 *   every answer is in (or DRAIN_MS passed: those still out count as `unanswered`), then
 *   {type: "done", p50Ms, p99Ms} over the whole run. It exits when the harness disconnects.
 */
import { createHistogram, performance, type RecordableHistogram } from "node:perf_hooks";
import { Pool } from "undici";
import type { WrkRequest } from "./wrk.ts";

export interface LoadConfig {
  origin: string;
  requests: WrkRequest[];
  /** What the body of a right answer to `requests[i]` contains. */
  expected: string[];
  /** Requests started a second. */
  rate: number;
  maxInFlight: number;
  connections: number;
}

/** One interval of a run, answers counted in the interval they came in. */
export interface IntervalStats {
  /** How long requests were started in it. */
  seconds: number;
  sent: number;
  /** Answers and failures that came in, right or not. */
  answered: number;
  /** Answers that were not 200. */
  status: number;
  /** 200s without the expected needle. */
  body: number;
  /** Connection errors, resets and timeouts. */
  socket: number;
  /** Starts skipped because `maxInFlight` requests were out. */
  missed: number;
  /** Still out when the run gave up waiting for them (last interval only). */
  unanswered: number;
  /** The most requests in flight at once. */
  peakInFlight: number;
  p50Ms: number;
  p99Ms: number;
  /** The first few failures, for diagnosis. */
  examples: string[];
}

export type ToLoad =
  ({ type: "config" } & LoadConfig) | { type: "run"; seconds: number; intervalSeconds: number };
export type FromLoad =
  | { type: "ready" }
  | { type: "interval"; stats: IntervalStats }
  | { type: "done"; p50Ms: number; p99Ms: number }
  | { type: "failed"; message: string };

/** How long the end of a run waits for answers still out. */
const DRAIN_MS = 15_000;
/** A request with no answer after this long is a socket error. */
const TIMEOUT_MS = 10_000;

const ms = (histogram: RecordableHistogram, percentile: number) =>
  histogram.count === 0 ? 0 : Math.round(histogram.percentile(percentile) / 10) / 100;

const send = (message: FromLoad) => process.send?.(message);

function runLoad(config: LoadConfig, seconds: number, intervalSeconds: number): Promise<void> {
  const pool = new Pool(config.origin, {
    connections: config.connections,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  const total = Math.round(config.rate * seconds);
  const period = 1000 / config.rate;
  const whole = createHistogram();
  let inFlight = 0;
  let next = 0;
  let examples = 0;
  let onIdle: (() => void) | undefined;

  const fresh = () => ({
    histogram: createHistogram(),
    stats: {
      ...{ seconds: 0, sent: 0, answered: 0, status: 0, body: 0, socket: 0, missed: 0 },
      ...{ unanswered: 0, peakInFlight: 0, p50Ms: 0, p99Ms: 0, examples: [] as string[] },
    },
  });
  let current = fresh();
  let intervalFrom = 0;
  const emit = (until: number, unanswered = 0) => {
    const { histogram, stats } = current;
    current = fresh();
    stats.seconds = (until - intervalFrom) / 1000;
    intervalFrom = until;
    stats.unanswered = unanswered;
    stats.p50Ms = ms(histogram, 50);
    stats.p99Ms = ms(histogram, 99);
    send({ type: "interval", stats });
  };

  const fail = (kind: "status" | "body" | "socket" | "missed", what: string) => {
    current.stats[kind]++;
    if (examples++ < 3) current.stats.examples.push(what);
  };
  const fire = (n: number, due: number) => {
    const index = n % config.requests.length;
    const request = config.requests[index] as WrkRequest;
    inFlight++;
    current.stats.sent++;
    current.stats.peakInFlight = Math.max(current.stats.peakInFlight, inFlight);
    pool
      .request({
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body,
      })
      .then(async ({ statusCode, body }) => {
        const text = await body.text();
        if (statusCode !== 200) fail("status", `${statusCode} ${text.slice(0, 200)}`);
        else if (!text.includes(config.expected[index] as string))
          fail("body", `200 without ${config.expected[index]}: ${text.slice(0, 200)}`);
      })
      .catch((error: unknown) =>
        fail("socket", error instanceof Error ? error.message : String(error)),
      )
      .finally(() => {
        const us = (performance.now() - due) * 1000;
        current.histogram.record(Math.max(1, Math.round(us)));
        whole.record(Math.max(1, Math.round(us)));
        current.stats.answered++;
        if (--inFlight === 0) onIdle?.();
      });
  };

  return new Promise((resolve) => {
    const t0 = performance.now() + 20;
    intervalFrom = t0;
    const end = t0 + seconds * 1000;
    for (let at = t0 + intervalSeconds * 1000; at < end - 1; at += intervalSeconds * 1000) {
      const until = at;
      setTimeout(() => emit(until), until - performance.now());
    }
    const finish = () => {
      const drained = new Promise<void>((done) => {
        if (inFlight === 0) return done();
        onIdle = done;
        setTimeout(done, DRAIN_MS);
      });
      void drained.then(async () => {
        onIdle = undefined;
        emit(end, inFlight);
        send({ type: "done", p50Ms: ms(whole, 50), p99Ms: ms(whole, 99) });
        await pool.destroy();
        resolve();
      });
    };
    const tick = () => {
      const now = performance.now();
      for (let due = t0 + next * period; next < total && due <= now; due = t0 + next * period) {
        if (inFlight >= config.maxInFlight) fail("missed", `missed start: ${inFlight} in flight`);
        else fire(next, due);
        next++;
      }
      if (next < total) setTimeout(tick, t0 + next * period - performance.now());
      else setTimeout(finish, end - performance.now());
    };
    setTimeout(tick, t0 - performance.now());
  });
}

let config: LoadConfig | undefined;
process.on("message", (message: ToLoad) => {
  if (message.type === "config") {
    const { type: _, ...rest } = message;
    config = rest;
    send({ type: "ready" });
  } else if (config !== undefined) {
    runLoad(config, message.seconds, message.intervalSeconds).catch((error: unknown) =>
      send({ type: "failed", message: error instanceof Error ? error.message : String(error) }),
    );
  }
});
process.on("disconnect", () => process.exit(0));
