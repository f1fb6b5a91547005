/**
 * One cold instance of the knowledge index benchmark (knowledge-index-size.ts forks it, with
 * `--expose-gc`): loads the stored index from the file named in argv, as a fresh service
 * instance would on a site's first question, then runs the questions once, in order. Prints one
 * JSON line: the load's milliseconds, the heap the loaded index holds (after GC, the stored
 * string dropped) and each search's milliseconds.
 */
import fs from "node:fs";
import { KnowledgeIndex } from "../core/intelligence/knowledge/knowledge-index.ts";
import { languageTerms } from "../core/intelligence/knowledge/language-terms.ts";
import { benchQuestions } from "./knowledge-passages.ts";

export interface ColdLoad {
  loadMs: number;
  heapBytes: number;
  searchMs: number[];
}

const [file, questionCount] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (file === undefined || gc === undefined) {
  console.error("usage: node --expose-gc --import tsx bench/knowledge-index-load.ts <file> <n>");
  process.exit(2);
}
const questions = benchQuestions(Number(questionCount));
// The stemmer is the service's code, not the index's data: loaded before the baseline.
languageTerms("en");
gc();
const before = process.memoryUsage().heapUsed;
let stored: string | undefined = fs.readFileSync(file, "utf8");
const start = performance.now();
const index = KnowledgeIndex.load(stored);
const loadMs = performance.now() - start;
stored = undefined;
gc();
const heapBytes = process.memoryUsage().heapUsed - before;
const searchMs = questions.map((question) => {
  const t = performance.now();
  index.search(question, 5);
  return performance.now() - t;
});
const result: ColdLoad = { loadMs, heapBytes, searchMs };
console.log(JSON.stringify(result));
