/**
 * The report of one benchmark: a Markdown table of every measured run, a summary of each side
 * (medians over the rounds) and the ratios of those medians, for bench/RESULTS.md; and the same
 * summary as one JSON object for `--json`.
 */
import os from "node:os";
import type { BenchSettings, Run } from "./rounds.ts";
import { SIDE_NAMES, type SideName } from "./sides.ts";

export interface SideSummary {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  cpu_ms_per_request: number | null;
  /** Every error of the side, its warm-up included: any one makes the benchmark no result. */
  errors: number;
}

export interface Summary {
  benchmark: string;
  node: string;
  cores: number;
  seconds: number;
  concurrency: number;
  rounds: number;
  sides: Record<SideName, SideSummary>;
  /** Median service req/s ÷ median bare req/s. */
  ratio: number;
  /** Median service req/s ÷ median express req/s. */
  floor_ratio: number;
}

const cpuPerRequest = (run: Run) =>
  run.window.answered === 0 ? null : run.window.cpuMs / run.window.answered;

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The nearest-rank `p`th percentile (0 < p ≤ 100) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

export const round = (value: number, digits: number) => Number(value.toFixed(digits));

export function summarize(benchmark: string, runs: Run[], settings: BenchSettings): Summary {
  const side = (name: SideName): SideSummary => {
    const all = runs.filter((r) => r.side === name);
    const measured = all.filter((r) => r.round > 0);
    const cpu = measured.map(cpuPerRequest).filter((v) => v !== null);
    return {
      rps: median(measured.map((r) => r.wrk.rps)),
      p50_ms: round(median(measured.map((r) => r.wrk.p50Ms)), 2),
      p99_ms: round(median(measured.map((r) => r.wrk.p99Ms)), 2),
      cpu_ms_per_request: cpu.length === 0 ? null : round(median(cpu), 3),
      errors: all.reduce((sum, r) => sum + r.wrk.errors, 0),
    };
  };
  const sides = { bare: side("bare"), express: side("express"), service: side("service") };
  return {
    benchmark,
    node: process.version,
    cores: os.cpus().length,
    seconds: settings.seconds,
    concurrency: settings.concurrency,
    rounds: settings.rounds,
    sides,
    ratio: round(sides.service.rps / sides.bare.rps, 3),
    floor_ratio: round(sides.service.rps / sides.express.rps, 3),
  };
}

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const rule = (columns: number) => row(Array.from({ length: columns }, () => "---"));
const fixed = (value: number | null, digits: number) =>
  value === null ? "–" : value.toFixed(digits);

/** The Markdown report; `load` is the one-minute load average before and after the runs. */
export function markdown(
  summary: Summary,
  runs: Run[],
  settings: BenchSettings,
  about: string,
  load: { before: number; after: number },
): string {
  const lines = [
    `${settings.seconds} s per run after ${settings.warmupSeconds} s of warm-up per side, ` +
      `${settings.rounds} rounds of bare, express, service in turn; ` +
      `\`wrk -t1 -c${settings.concurrency} --latency\` from its own process (one thread: ` +
      `the ${summary.cores} cores are shared by wrk, the side under load and any backend); ` +
      `${about}; Node ${summary.node}; load average (1 min) before / after: ` +
      `${load.before.toFixed(2)} / ${load.after.toFixed(2)}.`,
    "",
    row([
      "round",
      "side",
      "requests",
      "errors",
      "req/s",
      "p50 ms",
      "p99 ms",
      "CPU ms/req",
      "side count",
    ]),
    rule(9),
  ];
  for (const run of runs.filter((r) => r.round > 0)) {
    const { wrk, window } = run;
    lines.push(
      row([
        run.round,
        run.side,
        wrk.requests,
        wrk.errors,
        wrk.rps,
        wrk.p50Ms.toFixed(2),
        wrk.p99Ms.toFixed(2),
        fixed(cpuPerRequest(run), 3),
        window.answered,
      ]),
    );
  }
  lines.push(
    "",
    "Medians over the rounds (errors: every run, warm-up included):",
    "",
    row(["side", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "errors"]),
    rule(6),
  );
  for (const name of SIDE_NAMES) {
    const s = summary.sides[name];
    lines.push(
      row([
        name,
        s.rps,
        s.p50_ms.toFixed(2),
        s.p99_ms.toFixed(2),
        fixed(s.cpu_ms_per_request, 3),
        s.errors,
      ]),
    );
  }
  const express = summary.sides.express.rps / summary.sides.bare.rps;
  lines.push(
    "",
    `ratio (service ÷ bare, median req/s): **${summary.ratio.toFixed(2)}×**; ` +
      `floor_ratio (service ÷ express): **${summary.floor_ratio.toFixed(2)}×**; ` +
      `express ÷ bare: ${express.toFixed(2)}×.`,
  );
  return lines.join("\n");
}

/** One line per run that had errors, the warm-ups included; empty when there were none. */
export function failures(runs: Run[]): string[] {
  return runs
    .filter((r) => r.wrk.errors > 0)
    .map(
      (r) =>
        `${r.round === 0 ? "warm-up" : `round ${r.round}`}, ${r.side}: ${r.wrk.errors} errors ` +
        `(${r.wrk.checked} wrong or not 200, of which wrk saw ${r.wrk.status} as 4xx/5xx; ` +
        `${r.wrk.socket} socket errors or timeouts)`,
    );
}
