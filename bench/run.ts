/**
 * `npm run bench [-- name …]`: the benchmarks named (`sites`, `query`), or all of them. Each runs
 * the service side by side with a bare `node:http` server doing the same work and prints a
 * Markdown table for bench/RESULTS.md. BENCH_SECONDS (5) and BENCH_CONCURRENCY (32) set the runs;
 * BENCH_SITES (100) the number of sites the query benchmark spreads over.
 */
import { benchQuery } from "./query.ts";
import { benchSites } from "./sites.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const siteCount = Number(process.env.BENCH_SITES ?? 100);

const benchmarks: Record<string, () => Promise<void>> = {
  /** Authenticated GET /v1/sites/:id. */
  sites: () => benchSites({ seconds, concurrency }),
  /** Signed POST /v1/:siteId/query against a fast local REST backend. */
  query: () => benchQuery({ seconds, concurrency, siteCount }),
};

const names = process.argv.slice(2);
const unknown = names.filter((name) => !Object.hasOwn(benchmarks, name));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark ${unknown.join(", ")}; choose from ${Object.keys(benchmarks).join(", ")}`,
  );
  process.exit(2);
}
for (const name of names.length > 0 ? names : Object.keys(benchmarks)) {
  console.log(`\n## ${name}`);
  await benchmarks[name]!();
}
