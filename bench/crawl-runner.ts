/**
 * One side of one round of the crawl benchmark, in a process of its own (forked by crawl.ts with
 * `--import tsx --expose-gc`, one fresh process per side and round), so that the peak memory it
 * reports is that side's alone: a process's RSS hardly shrinks once grown, and its lifetime
 * maxRSS never does, so a process shared by sides or rounds would report the largest so far.
 *
 * IPC: the harness sends a RunnerTask; this sets up the guarded request (a production policy
 * allowing only the site's address, as test/crawler.test.ts does), runs `gc()` twice, reads the
 * memory and CPU "before", runs the side while sampling `process.memoryUsage()` every
 * SAMPLE_MS, and answers a RunnerResult, then exits. The crawler's modules are imported whatever
 * the side, so every side starts with the same code loaded. Sides:
 *
 * - `fetch`: the baseline, the N page URLs through the same guarded request with the crawler's
 *   headers, manual redirects, body cap and timeout, `perHost` (3) at a time, bodies read and
 *   dropped;
 * - `sitemap`, `links`: `crawlSite` of the site, with `maxPages` N and the defaults otherwise.
 */
import { pluginNetwork } from "../core/host/plugin-network.ts";
import { crawlSite, CRAWL_DEFAULTS } from "../core/intelligence/crawler/index.ts";
import type { GuardedRequest } from "../core/security/guarded-request.ts";
import { parseOutboundAllowList } from "../core/security/outbound-allow-list.ts";
import { OutboundPolicy } from "../core/security/outbound-policy.ts";

export type CrawlSideName = "fetch" | "sitemap" | "links";

export interface RunnerTask {
  side: CrawlSideName;
  /** `127.0.0.1:<port>`: the site's domain. */
  domain: string;
  /** Every page's path: what the fetch side asks for, what the crawl sides must find. */
  paths: string[];
}

export interface RunnerResult {
  /** Pages read: crawled by a crawl side, answered 200 with a body for the fetch side. */
  pages: number;
  /** The first few failures, and how many in all. */
  errors: string[];
  errorCount: number;
  /** HTTP requests made (robots.txt and sitemaps included for a crawl side). */
  requests: number;
  wallMs: number;
  /** This process's CPU time (user + system) during the side. */
  cpuMs: number;
  /** Bytes, just before the side began (after the two collections). */
  rssBefore: number;
  heapBefore: number;
  /** Bytes, the highest of the samples (taken every SAMPLE_MS and once at the end). */
  rssPeak: number;
  heapPeak: number;
  /** `process.resourceUsage().maxRSS` at the end, in bytes: the process's lifetime peak. */
  maxRss: number;
  samples: number;
}

const USER_AGENT = "SitevoiceBot/1.0 (+https://sitevoice.example/bot)";
const SAMPLE_MS = 20;
/** Failures kept word for word in the result. */
const KEPT_ERRORS = 5;

interface SideOutcome {
  pages: number;
  errors: string[];
  requests: number;
}

/** The baseline: every page once, `perHost` at a time, nothing parsed. */
async function fetchPages(request: GuardedRequest, task: RunnerTask): Promise<SideOutcome> {
  const errors: string[] = [];
  let pages = 0;
  let next = 0;
  const worker = async () => {
    while (next < task.paths.length) {
      const url = `http://${task.domain}${task.paths[next++]}`;
      try {
        const response = await request(url, {
          headers: {
            "user-agent": USER_AGENT,
            accept: "text/html,application/xml;q=0.9,*/*;q=0.8",
          },
          redirect: "manual",
          maxBytes: CRAWL_DEFAULTS.maxBytes,
          signal: AbortSignal.timeout(CRAWL_DEFAULTS.timeoutMs),
        });
        if (response.status === 200 && response.body.length > 0) pages++;
        else errors.push(`${url}: HTTP ${response.status}, ${response.body.length} bytes`);
      } catch (error) {
        errors.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CRAWL_DEFAULTS.perHost }, worker));
  return { pages, errors, requests: task.paths.length };
}

/** A crawl of the site; a page without a title or section ids is an error (nothing was read). */
async function crawlPages(request: GuardedRequest, task: RunnerTask): Promise<SideOutcome> {
  const result = await crawlSite(
    { domain: task.domain },
    { request, userAgent: USER_AGENT, maxPages: task.paths.length },
  );
  const errors = result.errors.map((e) => `${e.url}: ${e.reason}`);
  for (const page of result.pages) {
    if (page.title === null || page.sectionIds.length === 0) {
      errors.push(`${page.url}: read without a title or section ids`);
    }
  }
  return { pages: result.pages.length, errors, requests: result.fetched };
}

/** Runs `work` with the memory sampled; its outcome and the measurements. */
async function measured(work: () => Promise<SideOutcome>): Promise<RunnerResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("the crawl runner needs --expose-gc");
  gc();
  gc();
  const before = process.memoryUsage();
  let [rssPeak, heapPeak, samples] = [before.rss, before.heapUsed, 0];
  const sample = () => {
    const now = process.memoryUsage();
    rssPeak = Math.max(rssPeak, now.rss);
    heapPeak = Math.max(heapPeak, now.heapUsed);
    samples++;
  };
  const timer = setInterval(sample, SAMPLE_MS);
  const cpuFrom = process.cpuUsage();
  const from = performance.now();
  let outcome: SideOutcome;
  try {
    outcome = await work();
  } finally {
    clearInterval(timer);
  }
  const wallMs = performance.now() - from;
  const cpu = process.cpuUsage(cpuFrom);
  sample();
  return {
    pages: outcome.pages,
    errors: outcome.errors.slice(0, KEPT_ERRORS),
    errorCount: outcome.errors.length,
    requests: outcome.requests,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBefore: before.rss,
    heapBefore: before.heapUsed,
    rssPeak,
    heapPeak,
    maxRss: process.resourceUsage().maxRSS * 1024,
    samples,
  };
}

async function run(task: RunnerTask): Promise<RunnerResult> {
  const network = pluginNetwork(
    new OutboundPolicy({
      allowPrivateNetworks: false,
      allow: parseOutboundAllowList(task.domain),
    }),
  );
  try {
    const side = task.side === "fetch" ? fetchPages : crawlPages;
    return await measured(() => side(network.request, task));
  } finally {
    await network.close?.();
  }
}

process.once("message", (task: RunnerTask) => {
  run(task).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (error: unknown) => {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.send?.({ failed: message }, () => process.exit(1));
    },
  );
});
process.on("disconnect", () => process.exit(0));
