/**
 * The knowledge index on a big site, alone (no service, no store, no HTTP): `node --import tsx
 * bench/knowledge-index-size.ts` (`npm run bench -- knowledge` measures a crawled site's index
 * through the service, its store and its endpoint; this isolates the index). BENCH_PAGES
 * (500) pages of 10 passages of about 550 characters (knowledge-passages.ts, the same on every
 * run), English. Measures, in this process, the build (`KnowledgeIndex.build`) and the stored
 * string's size; then BENCH_LOADS (7) times, each in a fresh process as a cold instance would
 * (knowledge-index-load.ts): `KnowledgeIndex.load` of the string, the heap the index holds
 * after GC, and BENCH_QUESTIONS (300) searches of 2–6 words, a fifth with a typo, run once each
 * straight after the load (so JIT warm-up counts). Prints Markdown for bench/RESULTS.md; with
 * `--json` the last line is the summary as JSON.
 *
 * Goals (issue 33): load ≤ 200 ms, heap ≤ 30 MB per 5,000 passages, search p99 ≤ 20 ms.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { KnowledgeIndex } from "../core/intelligence/knowledge/knowledge-index.ts";
import { installCleanup, makeTempDir, removeTempDir } from "./cleanup.ts";
import type { ColdLoad } from "./knowledge-index-load.ts";
import { benchPassages } from "./knowledge-passages.ts";

const LOADER = fileURLToPath(new URL("./knowledge-index-load.ts", import.meta.url));

function setting(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const ms = (value: number) => value.toFixed(1);
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

export interface IndexSizeSummary {
  pages: number;
  passages: number;
  buildMs: number;
  storedBytes: number;
  loads: number;
  loadMsMedian: number;
  loadMsMax: number;
  heapBytesMedian: number;
  heapBytesMax: number;
  searches: number;
  searchMsP50: number;
  searchMsP99: number;
  searchMsMax: number;
}

async function coldLoad(file: string, questions: number): Promise<ColdLoad> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--expose-gc", "--import", "tsx", LOADER, file, String(questions)],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as ColdLoad;
}

/** Builds, stores and loads the index of a generated site; the figures. */
export async function benchIndexSize(): Promise<IndexSizeSummary> {
  const pages = setting("BENCH_PAGES", 500);
  const loads = setting("BENCH_LOADS", 7);
  const questions = setting("BENCH_QUESTIONS", 300);
  const passages = benchPassages(pages);
  const start = performance.now();
  const stored = KnowledgeIndex.build(passages, "en").serialize();
  const buildMs = performance.now() - start;
  const dir = makeTempDir();
  try {
    const file = path.join(dir, "index.json");
    fs.writeFileSync(file, stored);
    const runs: ColdLoad[] = [];
    for (let k = 0; k < loads; k++) runs.push(await coldLoad(file, questions));
    const searches = runs.flatMap((run) => run.searchMs).sort((a, b) => a - b);
    return {
      pages,
      passages: passages.length,
      buildMs,
      storedBytes: Buffer.byteLength(stored),
      loads,
      loadMsMedian: median(runs.map((run) => run.loadMs)),
      loadMsMax: Math.max(...runs.map((run) => run.loadMs)),
      heapBytesMedian: median(runs.map((run) => run.heapBytes)),
      heapBytesMax: Math.max(...runs.map((run) => run.heapBytes)),
      searches: searches.length,
      searchMsP50: percentile(searches, 50),
      searchMsP99: percentile(searches, 99),
      searchMsMax: searches.at(-1)!,
    };
  } finally {
    removeTempDir(dir);
  }
}

/** The figures as Markdown for bench/RESULTS.md. */
export function indexSizeMarkdown(s: IndexSizeSummary): string {
  return [
    `Knowledge index, ${s.pages} pages, ${s.passages} passages (Node ${process.version}, ` +
      `${os.cpus().length} CPUs):`,
    "",
    "| measure | value | goal |",
    "| --- | --- | --- |",
    `| build (\`KnowledgeIndex.build\`) | ${ms(s.buildMs)} ms | |`,
    `| stored string | ${mb(s.storedBytes)} MB | |`,
    `| cold load, median / max of ${s.loads} processes | ${ms(s.loadMsMedian)} / ${ms(s.loadMsMax)} ms | ≤ 200 ms |`,
    `| heap held, median / max | ${mb(s.heapBytesMedian)} / ${mb(s.heapBytesMax)} MB | ≤ 30 MB |`,
    `| search p50 / p99 / max (${s.searches}) | ${ms(s.searchMsP50)} / ${ms(s.searchMsP99)} / ${ms(s.searchMsMax)} ms | p99 ≤ 20 ms |`,
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  installCleanup();
  const summary = await benchIndexSize();
  console.log(indexSizeMarkdown(summary));
  if (process.argv.includes("--json")) console.log(JSON.stringify(summary));
}
