/**
 * The cluster benchmark's figures: each run as measured, each configuration's medians over the
 * rounds, their ratio (three ÷ one), and why a run is no result; the summary is also what `--json`
 * prints. The Markdown is cluster-markdown.ts's.
 */
import { INSTANCES, type Config, type CpuWindow } from "./cluster-nodes.ts";
import type { ProxyLog } from "./cluster-procs.ts";
import type { IngestionOptions, IngestionResult } from "./events-ingest.ts";
import { median, round } from "./report.ts";
import type { BenchSettings } from "./rounds.ts";
import type { WrkResult } from "./wrk.ts";

export type Workload = "query" | "events";

export interface ClusterRun {
  workload: Workload;
  config: Config;
  /** 0: the query path's warm-up (an events run has its own warm-up, `warm`). */
  round: number;
  wrk: WrkResult;
  warm?: WrkResult;
  cpu: CpuWindow;
  /** HAProxy's log over the run (and an events run's warm-up). */
  proxy: ProxyLog | undefined;
  /** An events run, judged once the instances stopped. */
  events?: IngestionResult;
  /**
   * A query run's `db_query` usage events (one for each query answered), counted once the
   * instances stopped: `lost`, answered queries without theirs; `unanswered`, events of queries
   * answered after wrk stopped reading (at most one a connection).
   */
  usage?: { stored: number; lost: number; unanswered: number };
}

export interface ConfigSummary {
  instances: number;
  rps: number;
  events_per_second: number | null;
  p50_ms: number;
  p99_ms: number;
  /**
   * CPU time of the instances HAProxy sent to, and of HAProxy, over the measured run, per
   * request (query) or per acknowledged event (events).
   */
  instances_cpu_ms: number;
  proxy_cpu_ms: number;
  /** 4xx/5xx answers over every run of this configuration, warm-ups included. */
  non_2xx: number;
  errors: number;
}

export interface WorkloadSummary {
  /** What the CPU figures are per. */
  cpu_per: "request" | "event";
  one: ConfigSummary;
  three: ConfigSummary;
  /** three ÷ one of the medians: req/s, p50, p99, and CPU per request or event (all of it). */
  ratio: { rps: number; p50: number; p99: number; cpu: number };
}

export interface ClusterSummary {
  benchmark: "cluster";
  command: string;
  node: string;
  machine: string;
  seconds: number;
  warmup_seconds: number;
  rounds: number;
  concurrency: number;
  /** Sites of each query run (each run has its own). */
  query_sites_per_run: number;
  /** Sites of each events run (each run has its own). */
  event_sites_per_run: number;
  events_per_request: number;
  load_average: { before: number; after: number };
  minutes: number;
  query: WorkloadSummary;
  events: WorkloadSummary;
  /** What the instances logged at warn or above, counted by message (cut short). */
  logged: string[];
  problems: string[];
}

export interface ClusterContext {
  querySitesPerRun: number;
  eventSitesPerRun: number;
  machine: string;
  /** What went wrong outside the runs (an instance that did not stop cleanly). */
  problems: string[];
  logged: string[];
  load: { before: number; after: number };
  minutes: number;
}

export function command(settings: BenchSettings, options: IngestionOptions): string {
  return (
    `BENCH_SECONDS=${settings.seconds} BENCH_WARMUP_SECONDS=${settings.warmupSeconds} ` +
    `BENCH_ROUNDS=${settings.rounds} BENCH_CONCURRENCY=${settings.concurrency} ` +
    `BENCH_SITES=${settings.siteCount} BENCH_EVENTS_PER_REQUEST=${options.eventsPerRequest} ` +
    `BENCH_EVENTS_RATE=${options.rate} npm run bench -- cluster`
  );
}

/** What a run's CPU is divided by: acknowledged events (events), else wrk's requests. */
export const unitsOf = (run: ClusterRun): number =>
  Math.max(1, run.events?.run_events_acknowledged ?? run.wrk.requests);

/** Every wrk run of `run`: an events run's warm-up too. */
export const wrksOf = (run: ClusterRun): WrkResult[] =>
  run.warm === undefined ? [run.wrk] : [run.warm, run.wrk];

function configSummary(runs: ClusterRun[], config: Config): ConfigSummary {
  const all = runs.filter((r) => r.config === config);
  const measured = all.filter((r) => r.round > 0);
  const cpu = (which: "instances" | "proxy") =>
    round(median(measured.map((r) => r.cpu[which] / unitsOf(r))), 4);
  const events = measured.map((r) => r.events?.events_per_second).filter((v) => v !== undefined);
  const wrks = all.flatMap(wrksOf);
  return {
    instances: INSTANCES[config],
    rps: median(measured.map((r) => r.wrk.rps)),
    events_per_second: events.length === 0 ? null : median(events),
    p50_ms: round(median(measured.map((r) => r.wrk.p50Ms)), 2),
    p99_ms: round(median(measured.map((r) => r.wrk.p99Ms)), 2),
    instances_cpu_ms: cpu("instances"),
    proxy_cpu_ms: cpu("proxy"),
    non_2xx: wrks.reduce((sum, w) => sum + w.status, 0),
    errors: wrks.reduce((sum, w) => sum + w.errors, 0),
  };
}

function workloadSummary(runs: ClusterRun[], workload: Workload): WorkloadSummary {
  const mine = runs.filter((r) => r.workload === workload);
  const one = configSummary(mine, "one");
  const three = configSummary(mine, "three");
  const cpu = (s: ConfigSummary) => s.instances_cpu_ms + s.proxy_cpu_ms;
  return {
    cpu_per: workload === "events" ? "event" : "request",
    one,
    three,
    ratio: {
      rps: round(three.rps / one.rps, 3),
      p50: round(three.p50_ms / one.p50_ms, 3),
      p99: round(three.p99_ms / one.p99_ms, 3),
      cpu: round(cpu(three) / cpu(one), 3),
    },
  };
}

/** Why the runs are no result; empty when they are one. */
function problemsOf(runs: ClusterRun[], querySites: number, concurrency: number): string[] {
  const problems: string[] = [];
  for (const run of runs) {
    const when = run.round === 0 ? "warm-up" : `round ${run.round}`;
    const where = `${when}, ${run.config}, ${run.workload}`;
    if (run.events !== undefined) {
      for (const p of run.events.problems) problems.push(`${where}: ${p}`);
    } else if (run.wrk.errors > 0) {
      const w = run.wrk;
      problems.push(
        `${where}: ${w.errors} errors (${w.checked} wrong or not 200, of which wrk saw ` +
          `${w.status} as 4xx/5xx; ${w.socket} socket errors or timeouts)` +
          (w.status > 0 ? `; if they are 429s, BENCH_SITES (${querySites} a run) must grow` : ""),
      );
    }
    const usage = run.usage;
    if (usage !== undefined && usage.lost > 0) {
      problems.push(`${where}: ${usage.lost} answered queries have no db_query usage event stored`);
    }
    if (usage !== undefined && usage.unanswered > concurrency) {
      problems.push(
        `${where}: ${usage.unanswered} db_query usage events more than queries answered ` +
          `(at most ${concurrency})`,
      );
    }
    const down = run.proxy?.down ?? [];
    if (down.length > 0) {
      problems.push(
        `${where}: HAProxy took a server out of the pool ${down.length} time(s), first: ` +
          `"${down[0]}"`,
      );
    }
    const backups = Object.entries(run.proxy?.byServer ?? {}).filter(([s]) => !/^sv\d$/.test(s));
    if (backups.length > 0) {
      const list = backups.map(([server, n]) => `${n} to ${server}`).join(", ");
      problems.push(`${where}: HAProxy sent requests past its checked servers: ${list}`);
    }
  }
  return problems;
}

export function clusterSummary(
  runs: ClusterRun[],
  settings: BenchSettings,
  options: IngestionOptions,
  context: ClusterContext,
): ClusterSummary {
  return {
    benchmark: "cluster",
    command: command(settings, options),
    node: process.version,
    machine: context.machine,
    seconds: settings.seconds,
    warmup_seconds: settings.warmupSeconds,
    rounds: settings.rounds,
    concurrency: settings.concurrency,
    query_sites_per_run: context.querySitesPerRun,
    event_sites_per_run: context.eventSitesPerRun,
    events_per_request: options.eventsPerRequest,
    load_average: context.load,
    minutes: round(context.minutes, 1),
    query: workloadSummary(runs, "query"),
    events: workloadSummary(runs, "events"),
    logged: context.logged,
    problems: [
      ...problemsOf(runs, context.querySitesPerRun, settings.concurrency),
      ...context.problems,
    ],
  };
}
