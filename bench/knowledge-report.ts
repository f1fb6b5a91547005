/**
 * The knowledge benchmark's report (knowledge.ts): one summary of the run (the `--json` line),
 * the goals of issue 33 checked against it, Markdown for bench/RESULTS.md, and why a run is not
 * a result. Megabytes are 10^6 bytes.
 */
import os from "node:os";
import type { ColdResult } from "./knowledge-cold.ts";
import type { ServiceLog } from "./knowledge-log.ts";
import type { KnowledgeFixture } from "./knowledge-side.ts";
import type { RetrievalRun } from "./knowledge/retrieval.ts";
import { median, percentile, round } from "./report.ts";
import type { BenchSettings } from "./rounds.ts";
import type { Window } from "./sides.ts";
import type { WrkResult } from "./wrk.ts";

export interface KnowledgeOptions {
  /** Pages of the generated site. */
  pages: number;
  /** Sites the load is dealt over, each holding the crawled site's index. */
  loadSites: number;
  /** Cold loads, each in a fresh process. */
  loads: number;
}

/** Everything one run measured. */
export interface KnowledgeRun {
  settings: BenchSettings;
  options: KnowledgeOptions;
  retrieval: RetrievalRun;
  fixture: KnowledgeFixture;
  log: ServiceLog;
  /** Questions sent (of those generated, the ones the site answers). */
  asked: number;
  cold: ColdResult[];
  warmup: WrkResult;
  wrk: WrkResult;
  /** The service's own CPU and answers over the measured run. */
  window: Window;
  /** The service's memory after GC, at the end of the measured run. */
  memory: NodeJS.MemoryUsage;
}

interface Goal {
  name: string;
  value: number;
  /** The bound `value` must not pass: at least it for `min`, at most it for `max`. */
  bound: number;
  kind: "min" | "max";
  met: boolean;
}

/** Sections the memory goal is stated for. */
const GOAL_SECTIONS = 5_000;

const mb = (bytes: number) => round(bytes / 1e6, 1);
const ms = (values: number[], p: number) => (values.length === 0 ? 0 : percentile(values, p));

function goal(name: string, value: number, kind: "min" | "max", bound: number): Goal {
  return { name, value, bound, kind, met: kind === "min" ? value >= bound : value <= bound };
}

export function knowledgeSummary(run: KnowledgeRun, load: { before: number; after: number }) {
  const { fixture, log, cold, wrk, window, retrieval } = run;
  const held = cold.map((c) => c.heapBytes + c.arrayBufferBytes);
  const first = cold.map((c) => c.firstAnswerMs);
  const search = {
    count: log.searchMs.length,
    p50_ms: ms(log.searchMs, 50),
    p99_ms: ms(log.searchMs, 99),
    max_ms: ms(log.searchMs, 100),
  };
  const alone = cold.flatMap((c) => c.searchMs);
  const perGoalSections = (bytes: number) => (bytes * GOAL_SECTIONS) / fixture.stats.sections;
  return {
    benchmark: "knowledge",
    node: process.version,
    cores: os.cpus().length,
    load_average: load,
    retrieval: {
      questions: retrieval.questions,
      pages: retrieval.pages,
      passages: retrieval.passages,
      page: retrieval.page,
      section: retrieval.section,
    },
    site: {
      pages: run.options.pages,
      crawled_pages: fixture.crawl.pages,
      stored_pages: fixture.stats.pages,
      sections: fixture.stats.sections,
      passages: fixture.stats.passages,
      crawl_ms: fixture.crawl.durationMs,
      crawl_run_ms: fixture.crawl.runMs,
      build_ms: log.build?.ms ?? null,
      index_mb: mb(fixture.indexBytes),
      passages_mb: mb(fixture.passageBytes),
    },
    cold: {
      loads: cold.length,
      first_answer_ms: { median: round(median(first), 1), max: round(Math.max(...first), 1) },
      second_answer_ms: round(median(cold.map((c) => c.secondAnswerMs)), 2),
      heap_mb: mb(median(cold.map((c) => c.heapBytes))),
      array_buffers_mb: mb(median(cold.map((c) => c.arrayBufferBytes))),
      held_mb: { median: mb(median(held)), max: mb(Math.max(...held)) },
      held_mb_per_5000_sections: mb(perGoalSections(median(held))),
      search_alone: {
        count: alone.length,
        p50_ms: round(ms(alone, 50), 2),
        p99_ms: round(ms(alone, 99), 2),
        max_ms: round(ms(alone, 100), 2),
      },
    },
    load: {
      load_sites: fixture.loadSites.length,
      questions: run.asked,
      concurrency: run.settings.concurrency,
      seconds: round(wrk.seconds, 1),
      requests: wrk.requests,
      rps: wrk.rps,
      p50_ms: wrk.p50Ms,
      p99_ms: wrk.p99Ms,
      errors: run.warmup.errors + wrk.errors,
      cpu_ms_per_request: window.answered === 0 ? null : round(window.cpuMs / window.answered, 3),
      search,
      request: {
        count: log.requestMs.length,
        p50_ms: ms(log.requestMs, 50),
        p99_ms: ms(log.requestMs, 99),
      },
      service_heap_mb: mb(run.memory.heapUsed),
      service_rss_mb: mb(run.memory.rss),
    },
    goals: [
      goal("page recall@3", round(retrieval.page.recall3, 3), "min", 0.85),
      goal("search p99 in the service, ms", search.p99_ms, "max", 20),
      goal("cold load to the first answer (median), ms", round(median(first), 1), "max", 200),
      goal("memory per 5,000 sections, MB", mb(perGoalSections(median(held))), "max", 30),
    ],
  };
}

export type KnowledgeSummary = ReturnType<typeof knowledgeSummary>;

/** Why the run is not a result; empty when it is one. */
export function knowledgeProblems(run: KnowledgeRun): string[] {
  const { fixture, log, cold, options } = run;
  const found: string[] = [];
  const { crawl } = fixture;
  if (crawl.status !== "done" || crawl.pages !== options.pages || crawl.errors > 0) {
    found.push(
      `the crawl ended ${crawl.status} with ${crawl.pages} pages of ${options.pages} and ${crawl.errors} errors`,
    );
  }
  if (log.build === undefined) found.push("the service logged no index build");
  if (run.asked === 0) found.push("the site answered none of the questions");
  if (cold.some((c) => c.hits === 0)) found.push("a cold load answered no passage");
  for (const [name, w] of [
    ["warm-up", run.warmup],
    ["measured run", run.wrk],
  ] as const) {
    if (w.errors > 0) {
      found.push(
        `${name}: ${w.errors} errors (${w.checked} answers not 200 or without a passage of the site, of which wrk saw ${w.status} as 4xx/5xx; ${w.socket} socket errors or timeouts)` +
          (w.status > 0
            ? "; 429s mean the load needs more sites: raise BENCH_KNOWLEDGE_SITES"
            : ""),
      );
    }
  }
  if (log.searchMs.length === 0) found.push("the service logged no search in the measured run");
  return found;
}

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const f3 = (value: number) => value.toFixed(3);

/** The run as Markdown for bench/RESULTS.md. */
export function knowledgeMarkdown(s: KnowledgeSummary, run: KnowledgeRun): string {
  const { site, cold, load } = s;
  const checks = round(
    (100 * load.load_sites * load.seconds) / 5 / Math.max(1, load.search.count),
    1,
  );
  const goals = s.goals.map(
    (g) =>
      `- ${g.name}: ${g.value} (goal ${g.kind === "min" ? "≥" : "≤"} ${g.bound}): **${g.met ? "met" : "NOT met"}**`,
  );
  return [
    `Node ${s.node}, ${s.cores} cores; load average (1 min) before / after: ` +
      `${s.load_average.before.toFixed(2)} / ${s.load_average.after.toFixed(2)}.`,
    "",
    `Retrieval on the fixture site: ${s.retrieval.questions} answerable questions over ` +
      `${s.retrieval.pages} pages (${s.retrieval.passages} passages), keyword search alone ` +
      "(the misses: `node --import tsx bench/knowledge/retrieval.ts`):",
    "",
    row(["by", "recall@3", "MRR"]),
    row(["---", "---", "---"]),
    row(["page", f3(s.retrieval.page.recall3), f3(s.retrieval.page.mrr)]),
    row(["section", f3(s.retrieval.section.recall3), f3(s.retrieval.section.mrr)]),
    "",
    `The generated site, crawled by the service (SQLite in a temp dir), then ` +
      `\`POST /v1/:siteId/knowledge\` loaded by \`wrk -t1 -c${load.concurrency}\` for ` +
      `${load.seconds} s after ${run.settings.warmupSeconds} s of warm-up, ${load.questions} ` +
      `questions dealt over ${load.load_sites} sites holding the same index:`,
    "",
    row(["measure", "value", "goal"]),
    row(["---", "---", "---"]),
    row([
      "pages served / crawled / stored",
      `${site.pages} / ${site.crawled_pages} / ${site.stored_pages}`,
      "",
    ]),
    row(["sections / passages", `${site.sections} / ${site.passages}`, ""]),
    row([
      "crawl (robots.txt, sitemaps, fetch, extract: its `duration_ms`)",
      `${site.crawl_ms} ms`,
      "",
    ]),
    row(["index build (the service's `build_ms`)", `${site.build_ms ?? "?"} ms`, ""]),
    row([
      "the crawl's whole run (crawl, build, storing transaction)",
      `${site.crawl_run_ms} ms`,
      "",
    ]),
    row(["stored: index row / pages' passages", `${site.index_mb} / ${site.passages_mb} MB`, ""]),
    row([
      `cold load to the first answer, median / max of ${cold.loads}`,
      `${cold.first_answer_ms.median} / ${cold.first_answer_ms.max} ms (then ${cold.second_answer_ms} ms)`,
      "≤ 200 ms",
    ]),
    row([
      "held after the load (heap + array buffers), median",
      `${cold.held_mb.median} MB (${cold.heap_mb} + ${cold.array_buffers_mb}); ` +
        `${cold.held_mb_per_5000_sections} MB per 5,000 sections`,
      "≤ 30 MB",
    ]),
    row([
      `search alone, the index held (the cold processes), p50 / p99 / max of ${cold.search_alone.count}`,
      `${cold.search_alone.p50_ms} / ${cold.search_alone.p99_ms} / ${cold.search_alone.max_ms} ms`,
      "",
    ]),
    row([
      `search in the service under load (\`took_ms\`), p50 / p99 / max of ${load.search.count}`,
      `${load.search.p50_ms} / ${load.search.p99_ms} / ${load.search.max_ms} ms`,
      "p99 ≤ 20 ms",
    ]),
    row([
      `search request in the service (\`latency_ms\`), p50 / p99 of ${load.request.count}`,
      `${load.request.p50_ms} / ${load.request.p99_ms} ms`,
      "",
    ]),
    row([
      "wrk: req/s, p50 / p99 (queueing included)",
      `${load.rps} req/s, ${load.p50_ms} / ${load.p99_ms} ms`,
      "",
    ]),
    row(["service CPU per request", `${load.cpu_ms_per_request ?? "?"} ms`, ""]),
    row([
      `service after the run, after GC (${load.load_sites + 1} indexes held): heap / RSS`,
      `${load.service_heap_mb} / ${load.service_rss_mb} MB`,
      "",
    ]),
    row(["errors (warm-up and run)", load.errors, "0"]),
    "",
    "What the times are: the search alone is `KnowledgeService.search` timed in a cold process " +
      "after its first answer, one question at a time; `took_ms` is the same call timed by the " +
      "service under load, so a search that makes the 5-s check of its index against the store " +
      `(each site's once every 5 s: about ${checks}% of the searches here) also waits for the ` +
      "other requests while the store answers; `latency_ms` is the service's own time for the request " +
      "(from its first middleware to the answer's end: Origin, signature, limit, search, usage " +
      "event, envelope, and the waits among the requests in flight); wrk's time is the " +
      "client's, with the wait before the service reads the request, which grows with the " +
      "connections once the service is saturated.",
    "",
    "Goals:",
    "",
    ...goals,
    "",
  ].join("\n");
}
