/**
 * `npm run bench -- events [--json]`: signed usage-event ingestion (`POST /v1/:siteId/analytics/
 * event`: Origin, the session's HMAC over the raw body, the per-site event limit, the body's
 * schema, the replay key, the event bus's batched insert, 202) through the service alone, on
 * SQLite and then on PostgreSQL, with every acknowledged event looked for in the database after.
 *
 * Per database: the service in its own process (events-side.ts) makes the sites and one session
 * each; the harness signs every request in advance, all unique (events-load.ts), and wrk sends
 * them, a warm-up and then the measured run, each request once. Then the service is closed (it
 * stores whatever is pending) and the harness reads the ids of every stored function_call row
 * (events-db.ts). Acknowledged: the ids of the 202 answers, warm-up and run. Lost: acknowledged
 * but not stored. Duplicates: an id acknowledged twice (a request taken for a retry of another).
 * Unanswered: stored but never acknowledged, the requests wrk had sent when its time ran out and
 * whose answers it no longer read: at most one per connection per wrk run, so up to
 * 2 × concurrency × events per request; more is an error. Lost or duplicates other than 0, any
 * error, or a request table that ran out: not a result, exit 1.
 *
 * Settings: BENCH_SECONDS (10) measured, BENCH_WARMUP_SECONDS (3), BENCH_CONCURRENCY (32);
 * BENCH_EVENTS_PER_REQUEST (20, as a widget batching a conversation's events sends them; 1 sends
 * the single-event form, 2–100 the batch form `{"events":[…]}`); BENCH_EVENTS_RATE (24,000):
 * events per second the pre-made requests cover (past them the run is an error: raise
 * it); BENCH_EVENTS_DATABASES (sqlite,postgres).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeTempDir, removeTempDir } from "./cleanup.ts";
import { postgresDatabase, sqliteDatabase, storedIds, type DatabaseName } from "./events-db.ts";
import {
  EVENT_TYPE,
  eventsScript,
  readOutcome,
  writeRequests,
  type EventsPlan,
} from "./events-load.ts";
import type { EventsServiceConfig, EventsSite } from "./events-side.ts";
import type { BenchSettings } from "./rounds.ts";
import { startSide } from "./sides.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

const SIDE_ENTRY = new URL("./events-side.ts", import.meta.url);

/** The service's per-site event limit: 600 a minute. No site gets more in a whole run. */
const SITE_EVENTS = 600;
const MIN_SITES = 1000;
/** The acceptance figure, reported next to each result (not a condition of exit 0). */
const TARGET_EVENTS_PER_SECOND = 5000;

interface EventsOptions {
  eventsPerRequest: number;
  rate: number;
  databases: DatabaseName[];
}

export interface DatabaseResult {
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

function readOptions(): EventsOptions {
  const int = (name: string, fallback: number, max: number) => {
    const raw = process.env[name];
    const value = raw === undefined || raw.trim() === "" ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw new Error(`${name} must be an integer from 1 to ${max}: ${raw}`);
    }
    return value;
  };
  const databases = (process.env.BENCH_EVENTS_DATABASES ?? "sqlite,postgres")
    .split(",")
    .map((name) => name.trim());
  for (const name of databases) {
    if (name !== "sqlite" && name !== "postgres") {
      throw new Error(`BENCH_EVENTS_DATABASES: sqlite and/or postgres, not ${name}`);
    }
  }
  return {
    eventsPerRequest: int("BENCH_EVENTS_PER_REQUEST", 20, 100),
    rate: int("BENCH_EVENTS_RATE", 24_000, 1_000_000),
    databases: databases as DatabaseName[],
  };
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** One database: set up, warm-up, measured run, close, count. */
async function runOn(
  name: DatabaseName,
  settings: BenchSettings,
  options: EventsOptions,
): Promise<DatabaseResult> {
  const n = options.eventsPerRequest;
  const warmRequests = Math.ceil((options.rate * settings.warmupSeconds) / n);
  const runRequests = Math.ceil((options.rate * settings.seconds) / n);
  // Requests are dealt to the sites in turn, so no site gets more than its minute's events.
  const sites = Math.max(
    MIN_SITES,
    Math.ceil((warmRequests + runRequests) / Math.floor(SITE_EVENTS / n)),
  );
  const dir = makeTempDir();
  const dataDir = path.join(dir, "service");
  const db = name === "sqlite" ? sqliteDatabase(dataDir) : await postgresDatabase(dataDir);
  try {
    const config: EventsServiceConfig = { dataDir, databaseUrl: db.url, siteCount: sites };
    const side = await startSide<EventsSite[]>(SIDE_ENTRY, "service", config);
    let warm: WrkResult, run: WrkResult, cpuMs: number;
    let warmIds: string[], runIds: string[], ranOut: number;
    try {
      const plan: EventsPlan = {
        sites: side.fixture,
        host: new URL(side.origin).host,
        eventsPerRequest: n,
        tag: name,
      };
      const script = (label: string, from: number, count: number) => {
        const data = path.join(dir, `${label}.requests`);
        writeRequests(data, plan, from, count);
        const file = path.join(dir, `${label}.lua`);
        fs.writeFileSync(file, eventsScript(data, path.join(dir, `${label}.json`), n));
        return file;
      };
      const warmScript = script("warmup", 0, warmRequests);
      const runScript = script("run", warmRequests, runRequests);
      const connections = settings.concurrency;
      warm = await runWrk(side.origin, warmScript, {
        seconds: settings.warmupSeconds,
        connections,
      });
      await side.start();
      run = await runWrk(side.origin, runScript, { seconds: settings.seconds, connections });
      ({ cpuMs } = await side.stop());
      const warmOut = readOutcome(path.join(dir, "warmup.json"));
      const runOut = readOutcome(path.join(dir, "run.json"));
      [warmIds, runIds, ranOut] = [warmOut.ids, runOut.ids, warmOut.ranOut + runOut.ranOut];
    } finally {
      // The service stores what is pending before it exits.
      await side.close();
    }
    const stored = new Set(await storedIds(db.database, EVENT_TYPE));
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
    const inFlight = 2 * settings.concurrency * n;
    if (unanswered < 0 || unanswered > inFlight) {
      problems.push(`${unanswered} stored events were never acknowledged (at most ${inFlight})`);
    }
    return {
      sites,
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
      cpu_ms_per_event: runIds.length === 0 ? null : round(cpuMs / runIds.length, 4),
      errors,
      ran_out: ranOut,
      problems,
    };
  } finally {
    await db.close();
    removeTempDir(dir);
  }
}

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;

function markdown(
  settings: BenchSettings,
  options: EventsOptions,
  results: Partial<Record<DatabaseName, DatabaseResult>>,
  load: { before: number; after: number },
): string {
  const any = Object.values(results)[0];
  const lines = [
    `${settings.seconds} s measured after ${settings.warmupSeconds} s of warm-up per database; ` +
      `\`wrk -t1 -c${settings.concurrency} --latency\` from its own process; ` +
      `${options.eventsPerRequest} event(s) per request, every request unique and signed, ` +
      `dealt in turn over ${any?.sites ?? "?"} sites with one session each; ` +
      `${os.cpus().length} cores; Node ${process.version}; load average (1 min) before / after: ` +
      `${load.before.toFixed(2)} / ${load.after.toFixed(2)}.`,
    "",
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
  for (const [name, r] of Object.entries(results)) {
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
      "measured run; acknowledged (202 answers' ids), stored (function_call rows counted after " +
      "the service closed), lost and unanswered (stored, but sent as wrk stopped and never " +
      "answered to it) cover warm-up and run.",
    "",
  );
  for (const [name, r] of Object.entries(results)) {
    const verdict = r.events_per_second >= TARGET_EVENTS_PER_SECOND ? "meets" : "does NOT meet";
    lines.push(
      r.problems.length === 0
        ? `- ${name}: ${r.events_per_second} events/s, zero loss: ${verdict} ≥ ` +
            `${TARGET_EVENTS_PER_SECOND} events/s.`
        : `- ${name}: NOT A RESULT: ${r.problems.join("; ")}.`,
    );
  }
  return lines.join("\n");
}

/** Runs the benchmark on each database; prints its report; true when every run is a result. */
export async function benchEvents(settings: BenchSettings, json: boolean): Promise<boolean> {
  const options = readOptions();
  const before = os.loadavg()[0] as number;
  const results: Partial<Record<DatabaseName, DatabaseResult>> = {};
  for (const name of options.databases) results[name] = await runOn(name, settings, options);
  const load = { before, after: os.loadavg()[0] as number };
  console.log(`\n## events\n`);
  console.log(markdown(settings, options, results, load));
  const failed = Object.entries(results).filter(([, r]) => r.problems.length > 0);
  if (failed.length > 0) {
    console.log(`A run with errors or lost events is not a result: events is not one.`);
  }
  if (json) {
    console.log(
      JSON.stringify({
        benchmark: "events",
        node: process.version,
        cores: os.cpus().length,
        seconds: settings.seconds,
        warmup_seconds: settings.warmupSeconds,
        concurrency: settings.concurrency,
        events_per_request: options.eventsPerRequest,
        load_average: load,
        databases: results,
      }),
    );
  }
  return failed.length === 0;
}
