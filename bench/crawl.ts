/**
 * `npm run bench -- crawl [--json]`: the site crawler (core/intelligence/crawler) reading N
 * pages from a local server, by its sitemaps and by its links, against a plain fetch loop of
 * the same pages, so the figures say what the crawler's own work costs on top of the fetching.
 *
 * The site (crawl-site.ts, pages from crawl-html.ts) is served from a child process, as the
 * other benchmarks' backends are, so its CPU lands outside the crawling process; it listens
 * twice, once with robots.txt naming a sitemap index of gzipped sitemaps and once with neither
 * (the crawler then follows links from `/`). Each side runs in a fresh child process
 * (crawl-runner.ts), one per side and round, so its peak RSS and its process's maxRSS are its
 * own, and its CPU time is the side's alone (with the runner's 20 ms memory sampling, 1–2% of it
 * in a profile, the same in every side). So every measured crawl starts with a cold JIT, as
 * a crawl in a fresh worker would; the warm-up round (one run of each side, not recorded, its
 * errors counted) warms the server and the tsx compile cache, not the runners. Then BENCH_ROUNDS
 * rounds of fetch, sitemap, links in turn.
 *
 * Every run of a crawl side must find exactly N pages with no error, and the fetch side read all
 * N; any other outcome, warm-up included, is not a result: exit 1. Report: crawl-report.ts.
 *
 * Settings: BENCH_CRAWL_PAGES (500) pages on the site (the crawl's `maxPages` is set to it),
 * BENCH_ROUNDS (3).
 */
import os from "node:os";
import { pagePaths } from "./crawl-html.ts";
import { CRAWL_SIDES, crawlMarkdown, crawlSummary, type CrawlRun } from "./crawl-report.ts";
import type { CrawlSideName, RunnerResult, RunnerTask } from "./crawl-runner.ts";
import type { CrawlSitePorts, CrawlSiteTask } from "./crawl-site.ts";
import { forkWithReply, stop } from "./forked.ts";
import type { BenchSettings } from "./rounds.ts";

const SITE_ENTRY = new URL("./crawl-site.ts", import.meta.url);
const RUNNER_ENTRY = new URL("./crawl-runner.ts", import.meta.url);

/** A side still running after this is killed and the benchmark fails. */
const SIDE_LIMIT_MS = 300_000;

function pageCount(): number {
  const raw = process.env.BENCH_CRAWL_PAGES;
  const value = raw === undefined || raw.trim() === "" ? 500 : Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`BENCH_CRAWL_PAGES must be a positive integer: ${raw}`);
  }
  return value;
}

/** One side of one round in a fresh runner process. */
async function runSide(task: RunnerTask): Promise<RunnerResult> {
  const { child, reply } = forkWithReply<{ result?: RunnerResult; failed?: string }>(
    RUNNER_ENTRY,
    ["--expose-gc"],
    task,
  );
  const limit = setTimeout(() => child.kill("SIGKILL"), SIDE_LIMIT_MS);
  try {
    const answer = await reply;
    if (answer.result === undefined)
      throw new Error(`the ${task.side} side failed: ${answer.failed}`);
    return answer.result;
  } finally {
    clearTimeout(limit);
    await stop(child);
  }
}

/** Why the runs are not a result; empty when they are one. */
function problems(runs: CrawlRun[], n: number): string[] {
  const found: string[] = [];
  for (const { round, side, result } of runs) {
    const run = round === 0 ? `warm-up ${side}` : `round ${round} ${side}`;
    if (result.pages !== n) found.push(`${run}: ${result.pages} pages of ${n}`);
    if (result.errorCount > 0) {
      found.push(`${run}: ${result.errorCount} errors, first: ${result.errors.join("; ")}`);
    }
  }
  return found;
}

/** Runs the benchmark; prints its report; true when every run is a result. */
export async function benchCrawl(settings: BenchSettings, json: boolean): Promise<boolean> {
  const n = pageCount();
  const paths = pagePaths(n);
  const before = os.loadavg()[0] as number;
  const site = forkWithReply<CrawlSitePorts>(SITE_ENTRY, [], { pages: n } satisfies CrawlSiteTask);
  const runs: CrawlRun[] = [];
  try {
    const ports = await site.reply;
    const domains: Record<CrawlSideName, string> = {
      fetch: `127.0.0.1:${ports.sitemapPort}`,
      sitemap: `127.0.0.1:${ports.sitemapPort}`,
      links: `127.0.0.1:${ports.linksPort}`,
    };
    for (let round = 0; round <= settings.rounds; round++) {
      for (const side of CRAWL_SIDES) {
        const result = await runSide({ side, domain: domains[side], paths });
        runs.push({ round, side, result });
      }
    }
  } finally {
    await stop(site.child);
  }
  const load = { before, after: os.loadavg()[0] as number };
  const summary = crawlSummary(runs, n, settings.rounds, load);
  const failed = problems(runs, n);
  console.log(`\n## crawl\n`);
  console.log(crawlMarkdown(summary, runs));
  for (const line of failed) console.log(`ERROR: ${line}`);
  if (failed.length > 0) console.log(`A run with errors is not a result: crawl is not one.`);
  if (json) console.log(JSON.stringify({ ...summary, problems: failed }));
  return failed.length === 0;
}
