/**
 * `npm run bench -- knowledge [--json]`: a site's knowledge, end to end (issue 33).
 *
 * 1. The retrieval evaluation on the fixture site (knowledge/retrieval.ts): recall@3 and MRR by
 *    page and by section, keyword search alone.
 * 2. A generated site of BENCH_KNOWLEDGE_PAGES (500) pages of 10 sections each
 *    (knowledge-html.ts), served from a process of its own (crawl-site.ts), crawled by the
 *    service in another (knowledge-side.ts: embedded SQLite in a temp dir, the crawl service's
 *    own run of the crawl its creation queued): the crawl's time, the index build's (from the
 *    service's log), the whole run's, and what was stored.
 * 3. BENCH_KNOWLEDGE_LOADS (5) cold loads, each a fresh process reading the stored index from
 *    that SQLite file through a KnowledgeService of its own, to its first answer
 *    (knowledge-cold.ts): that time, the heap and array buffers the index holds, and then each
 *    question's search alone (no other request in flight).
 * 4. `POST /v1/:siteId/knowledge` under load: wrk (wrk.ts, a process of its own) sends signed
 *    searches of 100 generated visitor questions (those the site answers), dealt over
 *    BENCH_KNOWLEDGE_SITES (30) load sites holding the same index, since each site takes 300 a
 *    minute (knowledge-requests.ts), for BENCH_WARMUP_SECONDS (3) and then BENCH_SECONDS (10) at
 *    BENCH_CONCURRENCY (32); every answer must be a 200 holding a passage of the site. wrk's
 *    latency includes the wait before the service reads a request, so the service's own log
 *    gives, over the measured run, each search's time and each search request's time in the
 *    service (knowledge-log.ts).
 *
 * Any error (a crawl that is not whole, a failed answer, warm-up included) makes the run no
 * result: exit 1. The goals are checked and reported (knowledge-report.ts); the site's process,
 * the service, the cold loads, wrk and the temp dir are gone at the end (cleanup.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeTempDir, removeTempDir } from "./cleanup.ts";
import type { CrawlSitePorts, CrawlSiteTask } from "./crawl-site.ts";
import { intSetting } from "./env-settings.ts";
import { forkWithReply, stop } from "./forked.ts";
import type { ColdResult, ColdTask } from "./knowledge-cold.ts";
import { readServiceLog } from "./knowledge-log.ts";
import { benchQuestions } from "./knowledge-passages.ts";
import {
  knowledgeMarkdown,
  knowledgeProblems,
  knowledgeSummary,
  type KnowledgeRun,
} from "./knowledge-report.ts";
import { signedSearches } from "./knowledge-requests.ts";
import type { KnowledgeFixture, KnowledgeSideConfig } from "./knowledge-side.ts";
import { knowledgeRetrieval } from "./knowledge/retrieval.ts";
import type { BenchSettings } from "./rounds.ts";
import { startSide, type Side } from "./sides.ts";
import { runWrk, writeWrkScript } from "./wrk.ts";

const SITE_ENTRY = new URL("./crawl-site.ts", import.meta.url);
const SIDE_ENTRY = new URL("./knowledge-side.ts", import.meta.url);
const COLD_ENTRY = new URL("./knowledge-cold.ts", import.meta.url);

/** Visitor questions generated; those the site answers are sent. */
const QUESTIONS = 100;

export interface KnowledgeOptions {
  pages: number;
  loadSites: number;
  loads: number;
}

/** The site served and crawled: the service side up with its fixture. */
async function crawledService(options: KnowledgeOptions, dir: string, questions: string[]) {
  const task: CrawlSiteTask = { pages: options.pages, content: "knowledge" };
  const site = forkWithReply<CrawlSitePorts>(SITE_ENTRY, [], task);
  try {
    const { sitemapPort } = await site.reply;
    const config: KnowledgeSideConfig = {
      dataDir: path.join(dir, "service"),
      logFile: path.join(dir, "service.log"),
      domain: `127.0.0.1:${sitemapPort}`,
      pages: options.pages,
      loadSites: options.loadSites,
      questions,
    };
    const side = await startSide<KnowledgeFixture>(SIDE_ENTRY, "service", config, ["--expose-gc"]);
    return { side, config, pagesOrigin: `http://127.0.0.1:${sitemapPort}` };
  } finally {
    await stop(site.child);
  }
}

async function coldLoad(task: ColdTask): Promise<ColdResult> {
  const cold = forkWithReply<{ result?: ColdResult; failed?: string }>(
    COLD_ENTRY,
    ["--expose-gc"],
    task,
  );
  try {
    const answer = await cold.reply;
    if (answer.result === undefined) throw new Error(`a cold load failed: ${answer.failed}`);
    return answer.result;
  } finally {
    await stop(cold.child);
  }
}

/** The loads, the warm-up and the measured run against the service side. */
async function measure(
  side: Side<KnowledgeFixture>,
  config: KnowledgeSideConfig,
  pagesOrigin: string,
  settings: BenchSettings,
  options: KnowledgeOptions,
  dir: string,
) {
  const { fixture } = side;
  const asked = fixture.answering.map((k) => config.questions[k]!);
  const cold: ColdResult[] = [];
  for (let k = 0; k < options.loads; k++) {
    // Each load's first answer to another question; every load then asks them all.
    const questions = [...asked.slice(k), ...asked.slice(0, k)];
    cold.push(await coldLoad({ dataDir: config.dataDir, siteId: fixture.siteId, questions }));
  }
  const script = writeWrkScript(
    {
      requests: signedSearches(fixture.loadSites, asked),
      needles: [`"items":[{"url":"${pagesOrigin}/`],
    },
    dir,
  );
  const connections = settings.concurrency;
  const warmup = await runWrk(side.origin, script, {
    seconds: settings.warmupSeconds,
    connections,
  });
  await side.start();
  const from = Date.now();
  const wrk = await runWrk(side.origin, script, { seconds: settings.seconds, connections });
  const to = Date.now();
  const window = await side.stop();
  const { memory } = await side.sample();
  return { asked: asked.length, cold, warmup, wrk, window, memory, from, to };
}

/** Runs the benchmark; prints its report; true when the run is a result. */
export async function benchKnowledge(settings: BenchSettings, json: boolean): Promise<boolean> {
  const options: KnowledgeOptions = {
    pages: intSetting("BENCH_KNOWLEDGE_PAGES", 500, 10_000),
    loadSites: intSetting("BENCH_KNOWLEDGE_SITES", 30, 1_000),
    loads: intSetting("BENCH_KNOWLEDGE_LOADS", 5, 50),
  };
  const before = os.loadavg()[0] as number;
  const retrieval = knowledgeRetrieval();
  const questions = benchQuestions(QUESTIONS);
  const dir = makeTempDir();
  let run: KnowledgeRun;
  try {
    const { side, config, pagesOrigin } = await crawledService(options, dir, questions);
    let measured;
    try {
      measured = await measure(side, config, pagesOrigin, settings, options, dir);
    } finally {
      await side.close();
    }
    const log = readServiceLog(fs.readFileSync(config.logFile, "utf8"), measured);
    run = { settings, options, retrieval, fixture: side.fixture, log, ...measured };
  } finally {
    removeTempDir(dir);
  }
  const summary = knowledgeSummary(run, { before, after: os.loadavg()[0] as number });
  const problems = knowledgeProblems(run);
  console.log(`\n## knowledge\n`);
  console.log(knowledgeMarkdown(summary, run));
  for (const line of problems) console.log(`ERROR: ${line}`);
  if (problems.length > 0) console.log(`A run with errors is not a result: knowledge is not one.`);
  if (json) console.log(JSON.stringify({ ...summary, problems }));
  return problems.length === 0;
}
