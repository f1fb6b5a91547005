/**
 * The crawl benchmark's report (crawl.ts): every measured run, then each side's medians over the
 * rounds and what the crawler costs on top of the fetch loop, as Markdown for bench/RESULTS.md;
 * and the same summary as one JSON object for `--json`.
 *
 * Memory, in MB of 2^20 bytes: "+" is the increase of the peak sample over the value just
 * before the side began (after two `gc()` calls), "peak" the highest sample itself (RSS or heap
 * used, sampled every 20 ms and at the end), maxRSS the kernel's peak RSS of the runner process
 * over its whole life (start-up and module loading included; it can exceed the sampled peak,
 * which may fall between samples).
 */
import os from "node:os";
import type { CrawlSideName, RunnerResult } from "./crawl-runner.ts";
import { median, round } from "./report.ts";

export interface CrawlRun {
  /** 0 for the warm-up. */
  round: number;
  side: CrawlSideName;
  result: RunnerResult;
}

export interface CrawlSideSummary {
  /** The fewest pages of any measured run (each must be N). */
  pages: number;
  requests: number;
  wall_ms: number;
  pages_per_second: number;
  cpu_ms_per_page: number;
  rss_increase_mb: number;
  rss_peak_mb: number;
  heap_increase_mb: number;
  heap_peak_mb: number;
  max_rss_mb: number;
}

export interface CrawlSummary {
  benchmark: "crawl";
  node: string;
  cores: number;
  pages: number;
  rounds: number;
  load_average: { before: number; after: number };
  /** Medians over the measured rounds. */
  sides: Record<CrawlSideName, CrawlSideSummary>;
}

/** In the order of every round. */
export const CRAWL_SIDES: CrawlSideName[] = ["fetch", "sitemap", "links"];

const ABOUT: Record<CrawlSideName, string> = {
  fetch: "fetch loop",
  sitemap: "crawl, sitemap",
  links: "crawl, links",
};

const MB = 1024 * 1024;
const mb = (bytes: number) => round(bytes / MB, 1);

/** One run's figures, in the summary's units. */
function figures(r: RunnerResult): CrawlSideSummary {
  return {
    pages: r.pages,
    requests: r.requests,
    wall_ms: Math.round(r.wallMs),
    pages_per_second: Math.round((r.pages / r.wallMs) * 1000),
    cpu_ms_per_page: round(r.cpuMs / Math.max(r.pages, 1), 3),
    rss_increase_mb: mb(r.rssPeak - r.rssBefore),
    rss_peak_mb: mb(r.rssPeak),
    heap_increase_mb: mb(r.heapPeak - r.heapBefore),
    heap_peak_mb: mb(r.heapPeak),
    max_rss_mb: mb(r.maxRss),
  };
}

export function crawlSummary(
  runs: CrawlRun[],
  pages: number,
  rounds: number,
  load: { before: number; after: number },
): CrawlSummary {
  const side = (name: CrawlSideName): CrawlSideSummary => {
    const each = runs.filter((r) => r.round > 0 && r.side === name).map((r) => figures(r.result));
    const mid = (key: keyof CrawlSideSummary) => median(each.map((f) => f[key]));
    return {
      pages: Math.min(...each.map((f) => f.pages)),
      requests: mid("requests"),
      wall_ms: mid("wall_ms"),
      pages_per_second: mid("pages_per_second"),
      cpu_ms_per_page: mid("cpu_ms_per_page"),
      rss_increase_mb: mid("rss_increase_mb"),
      rss_peak_mb: mid("rss_peak_mb"),
      heap_increase_mb: mid("heap_increase_mb"),
      heap_peak_mb: mid("heap_peak_mb"),
      max_rss_mb: mid("max_rss_mb"),
    };
  };
  return {
    benchmark: "crawl",
    node: process.version,
    cores: os.cpus().length,
    pages,
    rounds,
    load_average: load,
    sides: { fetch: side("fetch"), sitemap: side("sitemap"), links: side("links") },
  };
}

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const rule = (columns: number) => row(Array.from({ length: columns }, () => "---"));

const HEAD = [
  "pages",
  "requests",
  "wall ms",
  "pages/s",
  "CPU ms/page",
  "RSS + MB",
  "RSS peak MB",
  "heap + MB",
  "heap peak MB",
  "maxRSS MB",
];

const cells = (f: CrawlSideSummary) => [
  f.pages,
  f.requests,
  f.wall_ms,
  f.pages_per_second,
  f.cpu_ms_per_page.toFixed(3),
  f.rss_increase_mb.toFixed(1),
  f.rss_peak_mb.toFixed(1),
  f.heap_increase_mb.toFixed(1),
  f.heap_peak_mb.toFixed(1),
  f.max_rss_mb.toFixed(1),
];

/** What the crawl side costs beyond the fetch loop, per page, in CPU and in wall time. */
function overhead(summary: CrawlSummary, name: CrawlSideName): string {
  const base = summary.sides.fetch;
  const s = summary.sides[name];
  const cpu = s.cpu_ms_per_page - base.cpu_ms_per_page;
  const wall = (s.wall_ms - base.wall_ms) / summary.pages;
  return (
    `- ${ABOUT[name]}: ${cpu.toFixed(3)} CPU ms and ${wall.toFixed(3)} wall ms a page more ` +
    `than the fetch loop (${(s.cpu_ms_per_page / base.cpu_ms_per_page).toFixed(2)}× its CPU, ` +
    `${(s.wall_ms / base.wall_ms).toFixed(2)}× its wall time).`
  );
}

/** The Markdown report. */
export function crawlMarkdown(summary: CrawlSummary, runs: CrawlRun[]): string {
  const load = summary.load_average;
  const lines = [
    `${summary.pages} pages from a local \`node:http\` server in its own process; one warm-up ` +
      `run per side, then ${summary.rounds} rounds of fetch loop, crawl by sitemap, crawl by ` +
      `links, each run in a fresh process; ${summary.cores} cores; Node ${summary.node}; load ` +
      `average (1 min) before / after: ${load.before.toFixed(2)} / ${load.after.toFixed(2)}.`,
    "",
    row(["round", "side", ...HEAD, "errors"]),
    rule(HEAD.length + 3),
  ];
  for (const run of runs.filter((r) => r.round > 0)) {
    const f = figures(run.result);
    lines.push(row([run.round, ABOUT[run.side], ...cells(f), run.result.errorCount]));
  }
  lines.push("", "Medians over the rounds:", "", row(["side", ...HEAD]), rule(HEAD.length + 1));
  for (const name of CRAWL_SIDES) lines.push(row([ABOUT[name], ...cells(summary.sides[name])]));
  lines.push("", overhead(summary, "sitemap"), overhead(summary, "links"));
  return lines.join("\n");
}
