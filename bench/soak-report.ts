/**
 * The soak's report (soak.ts): a Markdown table with one row per minute (the load's counts, the
 * service's CPU time per request and its memory after `gc()`), the memory before and after with
 * the verdict, and the same figures as one JSON object for `--json`.
 */
import os from "node:os";
import type { Sample, Window } from "./sides.ts";
import type { IntervalStats } from "./soak-load.ts";

export interface SoakSettings {
  rate: number;
  seconds: number;
  warmupSeconds: number;
  siteCount: number;
  connections: number;
  maxInFlight: number;
}

export interface SoakRun {
  settings: SoakSettings;
  warmup: IntervalStats[];
  /** The service at the start of the measured window. */
  before: Sample;
  /** Each minute's load and the service sampled at its end (the last one's sample: `after`). */
  minutes: { stats: IntervalStats; sample: Sample }[];
  after: Sample;
  /** The service's own count and CPU time over the window. */
  window: Window;
  p50Ms: number;
  p99Ms: number;
  /** One-minute load average before and after the whole benchmark. */
  load: { before: number; after: number };
}

/** heapUsed after GC may grow less than both of these over the window to be called flat. */
const FLAT_MB = 5;
const FLAT_FRACTION = 0.1;
export const CRITERION =
  `heapUsed after two gc() calls grew by less than ${FLAT_MB} MB and less than ` +
  `${FLAT_FRACTION * 100}% of its value at the start, from the start of the window to its end`;

const MB = 1024 * 1024;
const round = (value: number, digits: number) => Number(value.toFixed(digits));
const mb = (bytes: number) => round(bytes / MB, 1);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export const errorsOf = (s: IntervalStats) =>
  s.status + s.body + s.socket + s.missed + s.unanswered;
/** In the warm-up only wrong answers count: a start missed while the service warms up does not. */
const warmupErrorsOf = (s: IntervalStats) => errorsOf(s) - s.missed;

function change(key: keyof NodeJS.MemoryUsage, run: SoakRun) {
  const before = run.before.memory[key];
  const after = run.after.memory[key];
  return {
    before: mb(before),
    after: mb(after),
    change: mb(after - before),
    change_pct: round(((after - before) / before) * 100, 1),
  };
}

/** Least-squares slope of heapUsed over the samples, in MB a minute: the trend, not the verdict. */
function slope(run: SoakRun): number {
  let t = 0;
  const points = [{ t, y: run.before.memory.heapUsed / MB }];
  for (const { stats, sample } of run.minutes) {
    t += stats.seconds / 60;
    points.push({ t, y: sample.memory.heapUsed / MB });
  }
  const mt = sum(points.map((p) => p.t)) / points.length;
  const my = sum(points.map((p) => p.y)) / points.length;
  const num = sum(points.map((p) => (p.t - mt) * (p.y - my)));
  const den = sum(points.map((p) => (p.t - mt) ** 2));
  return den === 0 ? 0 : round(num / den, 3);
}

export function soakSummary(run: SoakRun) {
  const { settings } = run;
  const all = run.minutes.map((m) => m.stats);
  const kinds = ["status", "body", "socket", "missed", "unanswered"] as const;
  const heap = change("heapUsed", run);
  const grew = run.after.memory.heapUsed - run.before.memory.heapUsed;
  const flat = grew < FLAT_MB * MB && grew < FLAT_FRACTION * run.before.memory.heapUsed;
  const errors = sum(all.map(errorsOf));
  const warmupErrors = sum(run.warmup.map(warmupErrorsOf));
  return {
    benchmark: "soak",
    node: process.version,
    cores: os.cpus().length,
    rate: settings.rate,
    seconds: settings.seconds,
    warmup_seconds: settings.warmupSeconds,
    sites: settings.siteCount,
    connections: settings.connections,
    max_in_flight: settings.maxInFlight,
    sent: sum(all.map((s) => s.sent)),
    requests: sum(all.map((s) => s.answered)),
    service_answered: run.window.answered,
    errors,
    errors_by_kind: Object.fromEntries(kinds.map((k) => [k, sum(all.map((s) => s[k]))])),
    warmup_errors: warmupErrors,
    warmup_missed: sum(run.warmup.map((s) => s.missed)),
    warmup_rate: round(sum(run.warmup.map((s) => s.sent)) / (settings.warmupSeconds || 1), 1),
    rate_per_minute: all.map((s) => round(s.answered / s.seconds, 1)),
    p50_ms: run.p50Ms,
    p99_ms: run.p99Ms,
    cpu_ms_per_request:
      run.window.answered === 0 ? null : round(run.window.cpuMs / run.window.answered, 3),
    heap_used_mb: heap,
    rss_mb: change("rss", run),
    heap_total_mb: change("heapTotal", run),
    external_mb: change("external", run),
    array_buffers_mb: change("arrayBuffers", run),
    heap_used_mb_by_minute: [run.before, ...run.minutes.map((m) => m.sample)].map((s) =>
      mb(s.memory.heapUsed),
    ),
    heap_used_slope_mb_per_minute: slope(run),
    verdict: flat ? "flat" : "grew",
    criterion: CRITERION,
    load_average: { before: round(run.load.before, 2), after: round(run.load.after, 2) },
    result: errors === 0 && warmupErrors === 0,
  };
}

export type SoakSummary = ReturnType<typeof soakSummary>;

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const fixed = (value: number, digits: number) => value.toFixed(digits);
const signed = (value: number, digits: number) => `${value >= 0 ? "+" : ""}${fixed(value, digits)}`;

const HEADER = ["minute", "requests", "rate req/s", "sent/s", "errors", "p50 ms", "p99 ms"].concat([
  "CPU ms/req",
  "GC ms",
  "heapUsed MB",
  "heapTotal MB",
  "rss MB",
]);

export function soakMarkdown(run: SoakRun, summary: SoakSummary): string {
  const { settings } = run;
  const lines = [
    `${settings.seconds} s at a fixed ${settings.rate} req/s (open loop, at most ` +
      `${settings.maxInFlight} in flight over ${settings.connections} keep-alive connections, ` +
      `from its own process) after ${settings.warmupSeconds} s of warm-up at the same rate; ` +
      `the service alone, ${settings.siteCount} sites × 5 signed bodies, one session each; ` +
      `latency from when each request was due; memory after two gc() calls in the service; ` +
      `1 MB = 2^20 bytes; Node ${summary.node}, ${summary.cores} cores; load average (1 min) ` +
      `before / after: ${fixed(run.load.before, 2)} / ${fixed(run.load.after, 2)}.`,
    "",
    row(HEADER),
    row(HEADER.map(() => "---")),
  ];
  const memory = (s: Sample) => [
    fixed(s.gcMs, 0),
    ...[s.memory.heapUsed, s.memory.heapTotal, s.memory.rss].map((b) => fixed(b / MB, 1)),
  ];
  lines.push(row(["start", "–", "–", "–", "–", "–", "–", "–", ...memory(run.before)]));
  let previous: Window = { cpuMs: 0, answered: 0 };
  for (const [i, { stats, sample }] of run.minutes.entries()) {
    // The last minute's CPU: the window's, read before the last sample's collections.
    const at = i === run.minutes.length - 1 ? run.window : sample;
    const answered = at.answered - previous.answered;
    const cpu = answered === 0 ? "–" : fixed((at.cpuMs - previous.cpuMs) / answered, 3);
    previous = at;
    lines.push(
      row([
        i + 1,
        stats.answered,
        fixed(stats.answered / stats.seconds, 1),
        fixed(stats.sent / stats.seconds, 1),
        errorsOf(stats),
        fixed(stats.p50Ms, 2),
        fixed(stats.p99Ms, 2),
        cpu,
        ...memory(sample),
      ]),
    );
  }
  const line = (name: string, c: ReturnType<typeof change>) =>
    `- ${name}: ${fixed(c.before, 1)} → ${fixed(c.after, 1)} MB ` +
    `(${signed(c.change, 1)} MB, ${signed(c.change_pct, 1)}%)`;
  lines.push(
    "",
    line("heapUsed", summary.heap_used_mb),
    line("rss", summary.rss_mb),
    line("heapTotal", summary.heap_total_mb),
    line("external", summary.external_mb),
    line("arrayBuffers", summary.array_buffers_mb),
    `- heapUsed trend (least squares over the samples): ` +
      `${signed(summary.heap_used_slope_mb_per_minute, 3)} MB a minute`,
    `- requests: ${summary.requests} answered by the load (${summary.sent} sent), ` +
      `${summary.service_answered} counted by the service; p50 ${fixed(run.p50Ms, 2)} ms, ` +
      `p99 ${fixed(run.p99Ms, 2)} ms over the window`,
    `- service CPU over the window: ${summary.cpu_ms_per_request ?? "–"} ms a request`,
    `- errors: ${summary.errors} (${JSON.stringify(summary.errors_by_kind)}); ` +
      `warm-up: ${summary.warmup_errors} errors, ${summary.warmup_rate} req/s sent, ` +
      `${summary.warmup_missed} starts missed (not counted as errors)`,
    "",
    `Verdict: **${summary.verdict}** (flat when ${CRITERION}).`,
  );
  return lines.join("\n");
}

/** The first failures of every interval that had any, warm-up included. */
export function soakExamples(run: SoakRun): string[] {
  return [...run.warmup, ...run.minutes.map((m) => m.stats)].flatMap((s) => s.examples);
}
