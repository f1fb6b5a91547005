/**
 * The one side of the knowledge benchmark (forked by knowledge.ts through sides.ts):
 * `node --import tsx bench/knowledge-side.ts service`. The service on embedded SQLite in
 * `dataDir`, logging at `info` to `logFile` (what knowledge-log.ts reads), with its jobs off.
 *
 * It makes the crawled site (`kb-site`, its domain the generated site's `127.0.0.1:<port>`,
 * English) and runs the crawl its creation queued through the crawl service's `run`, the job's
 * own work: the crawler, the extraction into passages, the index build and the transaction that
 * stores pages and index. Jobs are off so that nothing else runs meanwhile or under the load (the
 * load sites' first crawls, of `.example` domains, stay queued).
 *
 * The load sites: the widget's search takes 300 calls a minute per site, so the load spreads
 * round-robin over `loadSites` sites (events-service.ts makes them, one session each), as the
 * query benchmark does; each is given the crawled site's stored index row (site_id changed), so
 * each holds the same sections, and is searched once here, which loads its index from the store
 * as any instance would. The service's limits stay its defaults; its knowledge cache (256 MB of
 * stored indexes by default) holds them all at the default 30 sites. The price is memory: the
 * service holds one index per load site (about 12 MB each), which the report shows.
 *
 * It answers the fixture: the crawl's outcome, what was stored, the load sites and which of the
 * harness's questions find a passage (only those are sent, so every answer can be checked).
 */
import { pino } from "pino";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { RunningService } from "../core/http/service.ts";
import { makeEventSites, type EventsSite } from "./events-service.ts";
import { startBenchService } from "./service.ts";
import { runSide } from "./sides.ts";

export interface KnowledgeSideConfig {
  dataDir: string;
  logFile: string;
  /** `127.0.0.1:<port>`: the generated site. */
  domain: string;
  pages: number;
  loadSites: number;
  questions: string[];
}

export interface KnowledgeFixture {
  siteId: string;
  crawl: {
    status: string;
    pages: number;
    errors: number;
    /** The crawl's own duration as recorded: robots.txt, sitemaps, fetching and extracting. */
    durationMs: number;
    /** The crawl service's whole run: the crawl, the index build and the storing transaction. */
    runMs: number;
  };
  stats: { pages: number; sections: number; passages: number };
  /** UTF-8 bytes of the stored index (`site_knowledge.serialized`). */
  indexBytes: number;
  /** UTF-8 bytes of the pages' stored passages (`site_pages.passages`). */
  passageBytes: number;
  loadSites: EventsSite[];
  /** Indexes into the config's questions of those that find a passage. */
  answering: number[];
}

const KNOWLEDGE_SITE_ID = "kb-site";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** Makes the crawled site and runs its first crawl to its end. */
async function crawlSite(service: RunningService, domain: string) {
  await service.sites.create(operatorPrincipal(service.boot.workspaceId, "bench"), {
    site_id: KNOWLEDGE_SITE_ID,
    business_name: "Trattoria Guide",
    business_description: "A restaurant's guides: menus, bookings, events.",
    domain,
    language: "en",
  });
  const queued = await service.store.crawls.active(KNOWLEDGE_SITE_ID);
  if (queued === undefined) throw new Error("the site's creation queued no crawl");
  const started = performance.now();
  const ended = await service.crawls.run(queued.id);
  const runMs = Math.round(performance.now() - started);
  if (ended === undefined) throw new Error(`crawl ${queued.id} did not run`);
  return {
    runMs,
    status: ended.status,
    pages: ended.page_count,
    errors: (JSON.parse(ended.errors ?? "[]") as unknown[]).length,
    durationMs: (ended.finished_at ?? 0) - (ended.started_at ?? 0),
  };
}

async function prepare(service: RunningService, config: KnowledgeSideConfig) {
  const crawl = await crawlSite(service, config.domain);
  const { store, knowledge } = service;
  const row = await store.siteKnowledge.get(KNOWLEDGE_SITE_ID);
  if (row === undefined) throw new Error(`the crawl (${crawl.status}) stored no index`);
  const passages = await store.siteKnowledge.passages(KNOWLEDGE_SITE_ID);
  const cacheBytes = service.settings.caches.knowledgeMb * 1024 * 1024;
  if ((config.loadSites + 1) * row.serialized.length > cacheBytes) {
    // Indexes would leave the cache and be loaded again under the load: not what is measured.
    throw new Error(
      `${config.loadSites + 1} indexes of ${row.serialized.length} characters exceed the ` +
        `knowledge cache (${service.settings.caches.knowledgeMb} MB): fewer BENCH_KNOWLEDGE_SITES`,
    );
  }
  const answering: number[] = [];
  for (const [k, question] of config.questions.entries()) {
    const hits = await knowledge.search(KNOWLEDGE_SITE_ID, question, 3);
    if (hits.length > 0) answering.push(k);
  }
  const loadSites = await makeEventSites(service, config.loadSites);
  for (const site of loadSites) {
    await store.siteKnowledge.put({ ...row, site_id: site.siteId });
    // Held from now on, as by an instance that has been answering the site: the loads (tens of
    // ms each, the event loop held) stay out of the warm-up, where they would queue the calls.
    await knowledge.search(site.siteId, config.questions[answering[0] ?? 0]!, 3);
  }
  const stats = await knowledge.stats(KNOWLEDGE_SITE_ID);
  const fixture: KnowledgeFixture = {
    siteId: KNOWLEDGE_SITE_ID,
    crawl,
    stats: { pages: stats.pages, sections: stats.sections, passages: stats.passages },
    indexBytes: bytes(row.serialized),
    passageBytes: passages.reduce((sum, page) => sum + bytes(page.passages), 0),
    loadSites,
    answering,
  };
  return fixture;
}

runSide<KnowledgeSideConfig>(async (name, config) => {
  if (name !== "service") throw new Error(`the knowledge benchmark has no ${name} side`);
  const logs = pino.destination({ dest: config.logFile, sync: true });
  const service = await startBenchService(
    config.dataDir,
    {
      LOG_LEVEL: "info",
      SITEVOICE_JOBS: "off",
      SITEVOICE_CRAWL_MAX_PAGES: String(config.pages),
    },
    logs,
  );
  const fixture = await prepare(service, config);
  return { server: service.server, fixture, close: service.close };
});
