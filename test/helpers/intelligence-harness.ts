/**
 * SiteIntelligenceService instances on a real store under a fake clock: the real service (for
 * its store, plugins, templates and sites) on one database, a records backend the REST adapter
 * introspects (its request count is the count of introspections), sites on it and crawl rows.
 */
import crypto from "node:crypto";
import { pino } from "pino";
import { operatorPrincipal } from "../../core/auth/principal.ts";
import type { CrawledPage } from "../../core/intelligence/crawler/crawl-types.ts";
import {
  SiteIntelligenceService,
  type SiteIntelligenceParts,
} from "../../core/intelligence/site-intelligence-service.ts";
import type { PublicSite } from "../../core/sites/site-types.ts";
import type { Store } from "../../core/store/store.ts";
import { finishedCrawl, queuedCrawl } from "./crawl-rows.ts";
import { startRecordsServer, type RecordsServer } from "./records-server.ts";
import { createTestDatabase, type DatabaseTarget, type TestDatabase } from "./test-databases.ts";
import { startTestService, type TestService } from "./test-service.ts";

export const DOMAIN = "bakery.example";
export const ORIGIN = `https://${DOMAIN}`;
/** The collection's path on the records backend: each request to it is one introspection. */
export const ITEMS = "/items";
export const T0 = Date.parse("2026-11-21T13:05:00Z");
export const MINUTE = 60_000;

export const ITEM_RECORDS = [
  { name: "Sourdough", price: 6, secret_cost: 2 },
  { name: "Rye", price: 5, secret_cost: 1 },
];

export interface Harness {
  service: TestService;
  records: RecordsServer;
  /** The fake clock every instance reads. */
  clock: { now: number };
  /** Warn lines the instances logged. */
  warnings: Record<string, unknown>[];
  /** Site ids the instances asked a first crawl for. */
  firstCrawls: string[];
  instance(name: string, overrides?: Partial<SiteIntelligenceParts>): SiteIntelligenceService;
  /** A new site on the records backend (collection `items`: name, price); its id. */
  newSite(): Promise<string>;
  target(siteId: string): Promise<PublicSite>;
  crawl(siteId: string, pages: CrawledPage[]): Promise<void>;
  /** Requests the backend received for the collection so far. */
  introspections(): number;
  /** The store, but taking a regeneration lease waits for `gate` first. */
  storeLeasingAfter(gate: Promise<void>): Store;
  close(): Promise<void>;
}

/** What `work` rejects with; undefined when it resolves. */
export const rejection = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => undefined,
    (error: unknown) => error,
  );

/** One page per title, with a section id each. */
export const pagesOf = (...titles: string[]): CrawledPage[] =>
  titles.map((title) => ({
    url: `${ORIGIN}/${title.toLowerCase()}`,
    title,
    description: `About ${title}`,
    sectionIds: [title.toLowerCase()],
  }));

/** The harness on `target`'s database; undefined when its server is not there. */
export async function intelligenceHarness(target: DatabaseTarget): Promise<Harness | undefined> {
  const database: TestDatabase | undefined = await createTestDatabase(target);
  if (database === undefined) return undefined;
  const records = await startRecordsServer({ items: ITEM_RECORDS });
  const service = await startTestService(database.url, {
    SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    // Crawl rows are the tests' own (crawl-rows.ts): no job runs a crawl under them.
    SITEVOICE_JOBS: "off",
  });
  const clock = { now: T0 };
  const warnings: Record<string, unknown>[] = [];
  const firstCrawls: string[] = [];
  const logger = pino(
    { level: "warn" },
    { write: (line: string) => void warnings.push(JSON.parse(line)) },
  );
  const instances: SiteIntelligenceService[] = [];
  return {
    service,
    records,
    clock,
    warnings,
    firstCrawls,
    instance(name, overrides = {}) {
      const made = new SiteIntelligenceService({
        store: service.store,
        plugins: service.plugins,
        templates: service.templates,
        logger,
        sites: service.sites,
        knowledge: service.knowledge,
        queueFirstCrawl: async (siteId) => {
          firstCrawls.push(siteId);
          await queuedCrawl(service.store, siteId, clock.now);
        },
        now: () => clock.now,
        instanceName: name,
        ...overrides,
      });
      instances.push(made);
      return made;
    },
    async newSite() {
      const workspaceId = await service.workspace();
      const siteId = `cache-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Corner Bakery",
        business_description: "Bread",
        domain: DOMAIN,
        adapter: {
          type: "rest",
          config: { baseUrl: records.origin, queryMode: "querystring" },
          collections: {
            items: {
              source: ITEMS,
              searchable_fields: ["name"],
              filterable_fields: ["price"],
              display_fields: ["name", "price"],
            },
          },
        },
      });
      return siteId;
    },
    async target(siteId) {
      const found = await service.sites.publicSite(siteId);
      if (found === undefined) throw new Error(`no site ${siteId}`);
      return found;
    },
    async crawl(siteId, pages) {
      await finishedCrawl(service.store, siteId, { domain: DOMAIN, pages, at: clock.now });
    },
    introspections: () => records.count(ITEMS),
    storeLeasingAfter(gate) {
      const real = service.store.siteIntelligence;
      const siteIntelligence = Object.assign(Object.create(real) as typeof real, {
        lease: async (...args: Parameters<typeof real.lease>) => {
          await gate;
          return real.lease(...args);
        },
      });
      return Object.assign(Object.create(service.store) as Store, { siteIntelligence });
    },
    async close() {
      for (const made of instances) await made.idle();
      await service.stop();
      await records.close();
      await database.drop();
    },
  };
}
