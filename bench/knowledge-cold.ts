/**
 * One cold instance of the knowledge benchmark (knowledge.ts forks one per load, with
 * `--expose-gc`): a fresh process with the service's store open on the benchmark's SQLite file
 * (the service still running on it) and a KnowledgeService holding nothing, as an instance that
 * never searched the site. Its first search of the site reads the stored index (the cheap check,
 * then the row), loads it and answers; the time to that answer is the cold load. The heap and
 * array buffers the index then holds are read after GC, against a baseline taken after the
 * store's connection and the English stemmer were up (the instance's, not the index's). Then
 * each of the questions once, in order, the index held and no other request in flight: the
 * search alone, its JIT warm-up included.
 *
 * IPC: the harness sends a ColdTask; this answers `{result}` (or `{failed}`) and exits.
 */
import { pino } from "pino";
import { KnowledgeService } from "../core/intelligence/knowledge/knowledge-service.ts";
import { languageTerms } from "../core/intelligence/knowledge/language-terms.ts";
import { localChannel } from "../core/pubsub/channel.ts";
import { loadSettings } from "../core/settings.ts";
import { openDatabase } from "../core/store/database.ts";
import { Store } from "../core/store/store.ts";

export interface ColdTask {
  dataDir: string;
  siteId: string;
  /** The first is the first answer's; each is then asked once. */
  questions: string[];
}

export interface ColdResult {
  /** From the search's call to its answer: check, read, load, search. */
  firstAnswerMs: number;
  /** The same question again, the index held. */
  secondAnswerMs: number;
  hits: number;
  /** After GC, over the baseline. */
  heapBytes: number;
  arrayBufferBytes: number;
  /** Each question's search, once, after the memory was read. */
  searchMs: number[];
}

async function coldLoad(task: ColdTask): Promise<ColdResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("the cold load needs --expose-gc");
  const settings = loadSettings({ SITEVOICE_DATA_DIR: task.dataDir, LOG_LEVEL: "silent" });
  const store = new Store(openDatabase(settings.database));
  try {
    const knowledge = new KnowledgeService({
      store,
      logger: pino({ level: "silent" }),
      cacheBytes: settings.caches.knowledgeMb * 1024 * 1024,
      channel: localChannel(),
    });
    // The connection opened and the check's statement prepared, on a site without knowledge.
    const [question] = task.questions;
    if (question === undefined) throw new Error("the cold load needs a question");
    await knowledge.search("bench-no-such-site", question, 3);
    languageTerms("en");
    gc();
    gc();
    const before = process.memoryUsage();
    const first = performance.now();
    const hits = await knowledge.search(task.siteId, question, 3);
    const firstAnswerMs = performance.now() - first;
    const second = performance.now();
    await knowledge.search(task.siteId, question, 3);
    const secondAnswerMs = performance.now() - second;
    gc();
    gc();
    const after = process.memoryUsage();
    const searchMs: number[] = [];
    for (const asked of task.questions) {
      const from = performance.now();
      await knowledge.search(task.siteId, asked, 3);
      searchMs.push(performance.now() - from);
    }
    return {
      firstAnswerMs,
      secondAnswerMs,
      hits: hits.length,
      heapBytes: after.heapUsed - before.heapUsed,
      arrayBufferBytes: after.arrayBuffers - before.arrayBuffers,
      searchMs,
    };
  } finally {
    await store.close();
  }
}

process.once("message", (task: ColdTask) => {
  coldLoad(task).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (error: unknown) => {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.send?.({ failed: message }, () => process.exit(1));
    },
  );
});
process.on("disconnect", () => process.exit(0));
