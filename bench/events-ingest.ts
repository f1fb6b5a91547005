/**
 * The measured part of signed event ingestion (`POST /v1/:siteId/analytics/event`), on a service
 * side that is up with its sites and sessions (events-service.ts), whatever else its database
 * holds: events.ts runs it on an empty one, analytics.ts on a year of events.
 *
 * `sendEvents`: the harness signs every request in advance, all unique (events-load.ts), and wrk
 * sends them, a warm-up and then the measured run, each request once. Then the caller closes the
 * side (the service stores whatever is pending) and `judgeIngestion` reads the ids of the stored
 * function_call rows of those sites (events-db.ts). Acknowledged: the ids of the 202 answers,
 * warm-up and run. Lost: acknowledged but not stored. Duplicates: an id acknowledged twice (a
 * request taken for a retry of another). Unanswered: stored but never acknowledged, the requests
 * wrk had sent when its time ran out and whose answers it no longer read: at most one per
 * connection per wrk run, so up to 2 × concurrency × events per request; more is an error. Lost
 * or duplicates other than 0, any error, or a request table that ran out: not a result.
 *
 * Settings: BENCH_EVENTS_PER_REQUEST (20, as a widget batching a conversation's events sends them;
 * 1 sends the single-event form, 2–100 the batch form `{"events":[…]}`); BENCH_EVENTS_RATE
 * (40,000): events per second the pre-made requests cover (past them the run is an error: raise
 * it). The warm-up and run last BENCH_WARMUP_SECONDS and BENCH_SECONDS, with BENCH_CONCURRENCY
 * connections.
 */
import fs from "node:fs";
import path from "node:path";
import type { Settings } from "../core/settings.ts";
import { storedIds } from "./events-db.ts";
import {
  EVENT_TYPE,
  eventsScript,
  readOutcome,
  writeRequests,
  type EventsPlan,
} from "./events-load.ts";
import type { EventsSite } from "./events-service.ts";
import { intSetting } from "./env-settings.ts";
import { round } from "./report.ts";
import type { BenchSettings } from "./rounds.ts";
import type { Side } from "./sides.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

/** The service's per-site event limit: 600 a minute. No site gets more in a whole run. */
const SITE_EVENTS = 600;
const MIN_SITES = 1000;
/** The acceptance figure, reported next to each result (not a condition of exit 0). */
export const TARGET_EVENTS_PER_SECOND = 5000;

export interface IngestionOptions {
  eventsPerRequest: number;
  rate: number;
}

/** What wrk did and the side measured, before anything is counted. */
export interface IngestionRun {
  sites: EventsSite[];
  warm: WrkResult;
  run: WrkResult;
  /** The side's CPU time during the measured run. */
  cpuMs: number;
  warmIds: string[];
  runIds: string[];
  ranOut: number;
}

export interface IngestionResult {
  sites: number;
  /** Completed requests of the measured run (wrk's count). */
  requests: number;
  /** Acknowledged events, warm-up and run: what `stored` is compared with. */
  events_acknowledged: number;
  run_events_acknowledged: number;
  stored: number;
  lost: number;
  duplicates: number;
  unanswered: number;
  events_per_second: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  cpu_ms_per_event: number | null;
  /** wrk's errors (not 202, wrong ids, socket) in warm-up and run. */
  errors: number;
  ran_out: number;
  /** Why this is not a result; empty when it is one. */
  problems: string[];
}

export function readIngestionOptions(): IngestionOptions {
  return {
    eventsPerRequest: intSetting("BENCH_EVENTS_PER_REQUEST", 20, 100),
    rate: intSetting("BENCH_EVENTS_RATE", 40_000, 1_000_000),
  };
}

const requestCounts = (settings: BenchSettings, options: IngestionOptions) => ({
  warm: Math.ceil((options.rate * settings.warmupSeconds) / options.eventsPerRequest),
  run: Math.ceil((options.rate * settings.seconds) / options.eventsPerRequest),
});

/**
 * The sites the side must make: requests are dealt to the sites in turn, so no site gets more
 * than its minute's events in a whole run.
 */
export function ingestionSiteCount(settings: BenchSettings, options: IngestionOptions): number {
  const { warm, run } = requestCounts(settings, options);
  return Math.max(
    MIN_SITES,
    Math.ceil((warm + run) / Math.floor(SITE_EVENTS / options.eventsPerRequest)),
  );
}

/**
 * The warm-up and the measured run against `side` (a service side, or anything with an origin and
 * a measuring window: the cluster benchmark's HAProxy), whose `sites` they are dealt over; `tag`
 * makes the client ids unique.
 */
export async function sendEvents(
  side: Pick<Side<unknown>, "origin" | "start" | "stop">,
  sites: EventsSite[],
  dir: string,
  settings: BenchSettings,
  options: IngestionOptions,
  tag: string,
): Promise<IngestionRun> {
  const n = options.eventsPerRequest;
  const counts = requestCounts(settings, options);
  const plan: EventsPlan = {
    sites,
    host: new URL(side.origin).host,
    eventsPerRequest: n,
    tag,
  };
  const script = (label: string, from: number, count: number) => {
    const data = path.join(dir, `${label}.requests`);
    writeRequests(data, plan, from, count);
    const file = path.join(dir, `${label}.lua`);
    fs.writeFileSync(file, eventsScript(data, path.join(dir, `${label}.json`), n));
    return file;
  };
  const warmScript = script("warmup", 0, counts.warm);
  const runScript = script("run", counts.warm, counts.run);
  const connections = settings.concurrency;
  const warm = await runWrk(side.origin, warmScript, {
    seconds: settings.warmupSeconds,
    connections,
  });
  await side.start();
  const run = await runWrk(side.origin, runScript, { seconds: settings.seconds, connections });
  const { cpuMs } = await side.stop();
  const warmOut = readOutcome(path.join(dir, "warmup.json"));
  const runOut = readOutcome(path.join(dir, "run.json"));
  return {
    sites,
    warm,
    run,
    cpuMs,
    warmIds: warmOut.ids,
    runIds: runOut.ids,
    ranOut: warmOut.ranOut + runOut.ranOut,
  };
}

/** Counts what the closed service stored of `ingested` in `database`, and judges the run. */
export async function judgeIngestion(
  ingested: IngestionRun,
  database: Settings["database"],
  settings: BenchSettings,
  options: IngestionOptions,
): Promise<IngestionResult> {
  const { warm, run, warmIds, runIds, ranOut } = ingested;
  const siteIds = ingested.sites.map((site) => site.siteId);
  const stored = new Set(await storedIds(database, EVENT_TYPE, siteIds));
  const acked = new Set([...warmIds, ...runIds]);
  const lost = [...acked].filter((id) => !stored.has(id)).length;
  const duplicates = warmIds.length + runIds.length - acked.size;
  const unanswered = stored.size - (acked.size - lost);
  const errors = warm.errors + run.errors;
  const problems: string[] = [];
  if (errors > 0) {
    problems.push(
      `${errors} errors (${warm.checked + run.checked} answers not 202 or without the events' ` +
        `ids, of which wrk saw ${warm.status + run.status} as 4xx/5xx; ` +
        `${warm.socket + run.socket} socket errors or timeouts)`,
    );
  }
  if (ranOut > 0) {
    problems.push(
      `the request table ran out (${ranOut} requests past its end): raise BENCH_EVENTS_RATE`,
    );
  }
  if (lost > 0) problems.push(`${lost} acknowledged events are not stored`);
  if (duplicates > 0) problems.push(`${duplicates} events were acknowledged twice`);
  const inFlight = 2 * settings.concurrency * options.eventsPerRequest;
  if (unanswered < 0 || unanswered > inFlight) {
    problems.push(`${unanswered} stored events were never acknowledged (at most ${inFlight})`);
  }
  return {
    sites: siteIds.length,
    requests: run.requests,
    events_acknowledged: acked.size,
    run_events_acknowledged: runIds.length,
    stored: stored.size,
    lost,
    duplicates,
    unanswered,
    events_per_second: Math.round(runIds.length / run.seconds),
    requests_per_second: run.rps,
    p50_ms: run.p50Ms,
    p99_ms: run.p99Ms,
    cpu_ms_per_event: runIds.length === 0 ? null : round(ingested.cpuMs / runIds.length, 4),
    errors,
    ran_out: ranOut,
    problems,
  };
}

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;

/** One row per database: the Markdown table, what its columns cover, and a verdict each. */
export function ingestionMarkdown(
  results: Array<[string, IngestionResult]>,
  options: IngestionOptions,
): string[] {
  const lines = [
    row([
      "database",
      "events/request",
      "requests",
      "events acknowledged",
      "stored",
      "lost",
      "unanswered",
      "events/s",
      "req/s",
      "p50 ms",
      "p99 ms",
      "CPU ms/event",
      "errors",
    ]),
    row(Array.from({ length: 13 }, () => "---")),
  ];
  for (const [name, r] of results) {
    lines.push(
      row([
        name,
        options.eventsPerRequest,
        r.requests,
        r.events_acknowledged,
        r.stored,
        r.lost,
        r.unanswered,
        r.events_per_second,
        r.requests_per_second,
        r.p50_ms.toFixed(2),
        r.p99_ms.toFixed(2),
        r.cpu_ms_per_event === null ? "–" : r.cpu_ms_per_event.toFixed(4),
        r.errors,
      ]),
    );
  }
  lines.push(
    "",
    "requests, events/s, req/s, latency and CPU (the service process's own) are of the " +
      "measured run; acknowledged (202 answers' ids), stored (function_call rows of the run's " +
      "sites counted after the service closed), lost and unanswered (stored, but sent as wrk " +
      "stopped and never answered to it) cover warm-up and run.",
    "",
  );
  for (const [name, r] of results) {
    const verdict = r.events_per_second >= TARGET_EVENTS_PER_SECOND ? "meets" : "does NOT meet";
    lines.push(
      r.problems.length === 0
        ? `- ${name}: ${r.events_per_second} events/s, zero loss: ${verdict} ≥ ` +
            `${TARGET_EVENTS_PER_SECOND} events/s.`
        : `- ${name}: NOT A RESULT: ${r.problems.join("; ")}.`,
    );
  }
  return lines;
}
