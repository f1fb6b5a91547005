/**
 * What the meaning search adds to a knowledge search on this instance, the provider's answer
 * aside: `node --import tsx bench/knowledge-fused-search.ts`. The knowledge benchmark's 5,000
 * passages (knowledge-passages.ts) and their keyword index, vectors of 256 dimensions (random
 * directions, which cost what real ones do), and BENCH_QUESTIONS (300) questions asked twice,
 * warmed up first: by keywords alone (`fusedSearch` without an embed, as with embeddings off)
 * and fused, with an embed that answers at once (a random vector), so the difference is the
 * vector search over every passage, the fusion and the lookups, not the network.
 */
import { performance } from "node:perf_hooks";
import { pino } from "pino";
import { fusedSearch } from "../core/intelligence/knowledge/fused-search.ts";
import type { Embed } from "../core/intelligence/knowledge/knowledge-embedder.ts";
import { KnowledgeIndex } from "../core/intelligence/knowledge/knowledge-index.ts";
import { VectorIndex } from "../core/intelligence/knowledge/vector-index.ts";
import { benchPassages, benchQuestions, PASSAGES_PER_PAGE } from "./knowledge-passages.ts";

const PASSAGES = 5_000;
const DIMENSIONS = 256;
const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 300);

function randomVector(next: () => number): Float32Array {
  return Float32Array.from({ length: DIMENSIONS }, next);
}

/** xorshift32 numbers in -0.5..0.5, the same on every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000 - 0.5;
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function timed(run: (question: string) => Promise<unknown>, questions: string[]) {
  for (const question of questions.slice(0, 50)) await run(question); // warm-up
  const times: number[] = [];
  for (const question of questions) {
    const started = performance.now();
    await run(question);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)) };
}

const passages = benchPassages(PASSAGES / PASSAGES_PER_PAGE);
const index = KnowledgeIndex.build(passages, "en");
const next = generator(0x9e3779b9);
const vectors = VectorIndex.build(
  passages.map((passage) => passage.id),
  passages.map(() => randomVector(next)),
);
const embed: Embed = async (texts) => texts.map(() => randomVector(next));
const questions = benchQuestions(QUESTIONS);
const logger = pino({ level: "silent" });
const search = (question: string, withEmbed: Embed | undefined) =>
  fusedSearch({
    siteId: "bench",
    query: question,
    limit: 5,
    index,
    vectors,
    embed: withEmbed,
    logger,
  });

const keywords = await timed((question) => search(question, undefined), questions);
const fused = await timed((question) => search(question, embed), questions);
console.log(
  JSON.stringify({ passages: passages.length, dimensions: DIMENSIONS, keywords, fused }, null, 2),
);
