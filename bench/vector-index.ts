/**
 * The vector index of the optional meaning search at the size the knowledge benchmark asks
 * for (5,000 passages of 256 dimensions): build, stored size, load from the stored text, and
 * search, each timed in this process. The vectors are random directions, whose cost to build,
 * load and search is that of real ones. `measureVectorIndex` is for the knowledge benchmark;
 * run alone: `node --import tsx bench/vector-index.ts [passages] [dimensions]`.
 */
import { performance } from "node:perf_hooks";
import { VectorIndex } from "../core/intelligence/knowledge/vector-index.ts";

export interface VectorIndexFigures {
  passages: number;
  dimensions: number;
  buildMs: number;
  /** Characters of the stored text (ASCII, so also its bytes). */
  storedBytes: number;
  /** What float32 vectors would take as base64, for comparison. */
  float32StoredBytes: number;
  /** The vectors in memory (int8), without the ids. */
  vectorBytes: number;
  /** The first load in this process (code not yet optimized), as on a cold instance. */
  firstLoadMs: number;
  loadMs: { p50: number; p99: number; max: number };
  searchMs: { p50: number; p99: number; max: number };
}

/** A reproducible random unit-ish vector (xorshift), so runs compare. */
function randomVectors(count: number, dimensions: number): Float32Array[] {
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000 - 0.5;
  };
  return Array.from({ length: count }, () => Float32Array.from({ length: dimensions }, next));
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const spread = (times: number[]) => {
  const sorted = times.toSorted((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1)!),
  };
};

export function measureVectorIndex(
  passages = 5_000,
  dimensions = 256,
  rounds = { loads: 30, searches: 1_000 },
): VectorIndexFigures {
  const vectors = randomVectors(passages, dimensions);
  const ids = vectors.map((_, i) => `https://site.example/page-${Math.floor(i / 10)}#${i % 10}`);
  let start = performance.now();
  const built = VectorIndex.build(ids, vectors);
  const buildMs = Math.round((performance.now() - start) * 100) / 100;
  const stored = built.serialize();

  const loads: number[] = [];
  let loaded = built;
  for (let i = 0; i < rounds.loads; i++) {
    start = performance.now();
    loaded = VectorIndex.load(stored);
    loads.push(performance.now() - start);
  }
  const queries = randomVectors(rounds.searches + 50, dimensions).slice(50);
  const searches: number[] = [];
  for (const query of queries) {
    start = performance.now();
    loaded.search(query, 20);
    searches.push(performance.now() - start);
  }
  return {
    passages,
    dimensions,
    buildMs,
    storedBytes: stored.length,
    float32StoredBytes: Math.ceil((passages * dimensions * 4) / 3) * 4,
    vectorBytes: passages * dimensions,
    firstLoadMs: Math.round(loads[0]! * 100) / 100,
    loadMs: spread(loads),
    searchMs: spread(searches),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [passages, dimensions] = process.argv.slice(2).map(Number);
  process.stdout.write(`${JSON.stringify(measureVectorIndex(passages, dimensions), null, 2)}\n`);
}
