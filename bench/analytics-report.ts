/**
 * The analytics benchmark's report (analytics.ts): per database the load, the summary reads
 * against the goal, where a summary's time goes, and the ingestion run on the same data, as
 * Markdown for bench/RESULTS.md; the same figures as one JSON object for `--json`.
 */
import os from "node:os";
import type { BreakdownRow } from "./analytics-breakdown.ts";
import type { LoadResult } from "./analytics-load.ts";
import type { SeriesResult } from "./analytics-read.ts";
import type { DatabaseName } from "./events-db.ts";
import { ingestionMarkdown, type IngestionOptions, type IngestionResult } from "./events-ingest.ts";
import type { BenchSettings } from "./rounds.ts";

/** The goal: the year's summary by day answered within this at the 99th percentile. */
export const GOAL_P99_MS = 50;
export const GOAL_QUERY = "period=year&bucket=day";

export interface DatabaseAnalytics {
  load: LoadResult;
  reads: SeriesResult[];
  breakdown: BreakdownRow[];
  ingestion: IngestionResult;
}

export interface AnalyticsRun {
  settings: BenchSettings;
  ingestionOptions: IngestionOptions;
  /** Events of each loaded site, the busy one first. */
  sites: Array<{ siteId: string; events: number }>;
  warmup: number;
  requests: number;
  results: Partial<Record<DatabaseName, DatabaseAnalytics>>;
  loadAverage: { before: number; after: number };
}

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const head = (names: string[]) => [row(names), row(names.map(() => "---"))];
const fmt = (value: number) => value.toLocaleString("en");
const each = (run: AnalyticsRun) => Object.entries(run.results);

/** Why the run is not a result: a wrong answer, or an ingestion run that is not one. */
export function problemsOf(run: AnalyticsRun): string[] {
  const problems: string[] = [];
  for (const [name, r] of each(run)) {
    for (const s of r.reads.filter((series) => series.errors > 0)) {
      problems.push(
        `${name} ${s.zone} ${s.query}: ${s.errors} wrong answers, first: ${s.first_error}`,
      );
    }
    for (const problem of r.ingestion.problems) problems.push(`${name} ingestion: ${problem}`);
  }
  return problems;
}

function loadTable(run: AnalyticsRun): string[] {
  const lines = head([
    "database",
    "events",
    "rollup rows",
    "events s",
    "rollups s",
    "vacuum analyze s",
    "size MB",
  ]);
  for (const [name, r] of each(run)) {
    const { events, rollups, seconds, bytes } = r.load;
    lines.push(
      row([
        name,
        fmt(events),
        fmt(rollups),
        seconds.events,
        seconds.rollups,
        name === "postgres" ? seconds.vacuum : "–",
        fmt(Math.round(bytes / 2 ** 20)),
      ]),
    );
  }
  return lines;
}

function readsTable(run: AnalyticsRun): string[] {
  const lines = head([
    "database",
    "zone",
    "query",
    "p50 ms",
    "p99 ms",
    "mean ms",
    "max ms",
    "buckets",
    "answer KB",
    "errors",
  ]);
  for (const [name, r] of each(run)) {
    for (const s of r.reads) {
      lines.push(
        row([
          name,
          s.zone,
          `\`${s.query}\``,
          s.p50_ms.toFixed(2),
          s.p99_ms.toFixed(2),
          s.mean_ms.toFixed(2),
          s.max_ms.toFixed(2),
          s.buckets,
          (s.answer_bytes / 1024).toFixed(1),
          s.errors,
        ]),
      );
    }
  }
  return lines;
}

function goalLines(run: AnalyticsRun): string[] {
  const lines: string[] = [];
  for (const [name, r] of each(run)) {
    for (const s of r.reads.filter((series) => series.query === GOAL_QUERY)) {
      const met = s.p99_ms < GOAL_P99_MS ? "meets" : "does NOT meet";
      lines.push(
        `- ${name}, ${s.zone}: year by day p99 ${s.p99_ms.toFixed(2)} ms: ${met} the goal ` +
          `(p99 < ${GOAL_P99_MS} ms).`,
      );
    }
  }
  return lines;
}

function breakdownTable(run: AnalyticsRun): string[] {
  const lines = head([
    "database",
    "zone",
    "query",
    "quarter rows ms",
    "quarter rows",
    "day rows ms",
    "day rows",
    "bucketsOf ms",
    "summary() ms",
    "cold summary() ms",
    "HTTP p50 ms",
  ]);
  for (const [name, r] of each(run)) {
    for (const b of r.breakdown) {
      const http = r.reads.find((s) => s.zone === b.zone && s.query === b.query);
      lines.push(
        row([
          name,
          b.zone,
          `\`${b.query}\``,
          b.quarters_ms.toFixed(2),
          fmt(b.quarter_rows),
          b.days_ms.toFixed(2),
          fmt(b.day_rows),
          b.buckets_ms.toFixed(2),
          b.summary_ms.toFixed(2),
          b.cold_ms.toFixed(2),
          http === undefined ? "–" : http.p50_ms.toFixed(2),
        ]),
      );
    }
  }
  return lines;
}

export function analyticsMarkdown(run: AnalyticsRun): string {
  const [busy, ...quiet] = run.sites;
  const { settings, ingestionOptions } = run;
  return [
    `${fmt(busy!.events)} usage events of the busy site over the last 365 days and ` +
      `${fmt(quiet[0]?.events ?? 0)} of each of ${quiet.length} quiet sites, then their rollups, ` +
      `written by the database itself into the service's migrated tables; ` +
      `${os.cpus().length} cores; Node ${process.version}; load average (1 min) before / after: ` +
      `${run.loadAverage.before.toFixed(2)} / ${run.loadAverage.after.toFixed(2)}.`,
    "",
    "Load (wall time of each step):",
    "",
    ...loadTable(run),
    "",
    `\`GET /v1/:siteId/analytics/summary\` of the busy site over HTTP, one request at a time on ` +
      `one keep-alive connection: ${run.requests} measured after ${run.warmup} of warm-up per ` +
      `zone and query (the site's \`timezone\` set through \`PATCH /v1/sites/:id\` first); ` +
      `every answer checked (200, the zone, buckets):`,
    "",
    ...readsTable(run),
    "",
    ...goalLines(run),
    "",
    `Where a summary's time goes: the service's own calls in the harness's process on the same ` +
      `database, medians of 7 (\`summary()\` is the whole of it without HTTP: the two rollup ` +
      `reads, the buckets and the tallying):`,
    "",
    ...breakdownTable(run),
    "",
    `Signed ingestion on the same databases: ${settings.seconds} s measured after ` +
      `${settings.warmupSeconds} s of warm-up, \`wrk -t1 -c${settings.concurrency}\`, ` +
      `${ingestionOptions.eventsPerRequest} event(s) per request dealt over other sites of the ` +
      `same service, each with one session:`,
    "",
    ...ingestionMarkdown(
      each(run).map(([name, r]) => [name, r.ingestion]),
      ingestionOptions,
    ),
  ].join("\n");
}

export function analyticsJson(run: AnalyticsRun) {
  return {
    benchmark: "analytics",
    node: process.version,
    cores: os.cpus().length,
    sites: run.sites,
    warmup: run.warmup,
    requests: run.requests,
    goal_p99_ms: GOAL_P99_MS,
    seconds: run.settings.seconds,
    warmup_seconds: run.settings.warmupSeconds,
    concurrency: run.settings.concurrency,
    events_per_request: run.ingestionOptions.eventsPerRequest,
    load_average: run.loadAverage,
    databases: run.results,
    problems: problemsOf(run),
  };
}
