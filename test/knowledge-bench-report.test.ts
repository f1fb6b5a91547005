/**
 * The knowledge benchmark's judgement of a run (bench/knowledge-report.ts): the goals of issue 33
 * met or not, and what makes a run no result, on made-up runs.
 */
import { expect } from "chai";
import {
  knowledgeProblems,
  knowledgeSummary,
  type KnowledgeRun,
} from "../bench/knowledge-report.ts";
import type { WrkResult } from "../bench/wrk.ts";

const wrk = (errors = 0, status = 0): WrkResult => ({
  requests: 5000,
  errors,
  checked: errors,
  socket: 0,
  status,
  seconds: 10,
  rps: 500,
  p50Ms: 50,
  p99Ms: 120,
});

/** A run meeting every goal, with `change` made to it. */
function runWith(change: (run: KnowledgeRun) => void = () => {}): KnowledgeRun {
  const run: KnowledgeRun = {
    settings: { seconds: 10, warmupSeconds: 3, rounds: 1, concurrency: 32, siteCount: 100 },
    options: { pages: 500, loadSites: 40, loads: 2 },
    retrieval: {
      page: { recall3: 0.9, mrr: 0.8 },
      section: { recall3: 0.8, mrr: 0.7 },
      questions: 92,
      misses: [],
      unanswerable: [],
      pages: 16,
      passages: 76,
    },
    fixture: {
      siteId: "kb-site",
      crawl: { status: "done", pages: 500, errors: 0, durationMs: 2000, runMs: 2600 },
      stats: { pages: 500, sections: 5000, passages: 5000 },
      indexBytes: 4_800_000,
      passageBytes: 4_200_000,
      loadSites: [],
      answering: [0, 1],
    },
    log: { build: { ms: 500, passages: 5000 }, searchMs: [1, 2, 3, 4], requestMs: [2, 3, 4, 5] },
    asked: 2,
    cold: [
      {
        firstAnswerMs: 90,
        secondAnswerMs: 3,
        hits: 3,
        heapBytes: 11e6,
        arrayBufferBytes: 1e6,
        searchMs: [1],
      },
      {
        firstAnswerMs: 110,
        secondAnswerMs: 3,
        hits: 3,
        heapBytes: 11e6,
        arrayBufferBytes: 1e6,
        searchMs: [1],
      },
    ],
    warmup: wrk(),
    wrk: wrk(),
    window: { cpuMs: 15_000, answered: 5000 },
    memory: process.memoryUsage(),
  };
  change(run);
  return run;
}

const LOAD = { before: 0.5, after: 1.5 };
const goal = (run: KnowledgeRun, prefix: string) =>
  knowledgeSummary(run, LOAD).goals.find((g) => g.name.startsWith(prefix))!;

describe("the knowledge benchmark's report", () => {
  it("meets every goal on a run within all of them", () => {
    expect(knowledgeSummary(runWith(), LOAD).goals.map((g) => g.met)).to.deep.equal([
      true,
      true,
      true,
      true,
    ]);
  });

  it("does not meet the retrieval goal below a page recall@3 of 0.85", () => {
    const run = runWith((r) => (r.retrieval.page.recall3 = 0.84));
    expect(goal(run, "page recall@3").met).to.equal(false);
  });

  it("judges the search goal on the service's own search times at p99", () => {
    const run = runWith((r) => (r.log.searchMs = [...Array<number>(98).fill(1), 25, 25]));
    expect(goal(run, "search p99")).to.deep.include({ value: 25, met: false });
  });

  it("judges the cold load on the median of the loads", () => {
    const run = runWith((r) => (r.cold[1]!.firstAnswerMs = 500));
    expect(goal(run, "cold load")).to.deep.include({ value: 295, met: false });
  });

  it("scales the memory held (heap and array buffers) to 5,000 sections", () => {
    const run = runWith((r) => (r.fixture.stats.sections = 2500));
    expect(goal(run, "memory")).to.deep.include({ value: 24, met: true });
  });

  it("counts a run whose every part worked as a result", () => {
    expect(knowledgeProblems(runWith())).to.deep.equal([]);
  });

  it("counts a run with a failed answer in the warm-up as no result", () => {
    const problems = knowledgeProblems(runWith((r) => (r.warmup = wrk(3, 3))));
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^warm-up: 3 errors .*BENCH_KNOWLEDGE_SITES/);
  });

  it("counts a crawl that missed pages as no result", () => {
    const problems = knowledgeProblems(runWith((r) => (r.fixture.crawl.pages = 499)));
    expect(problems).to.deep.equal(["the crawl ended done with 499 pages of 500 and 0 errors"]);
  });
});
