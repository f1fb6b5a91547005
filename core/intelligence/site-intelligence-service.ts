/**
 * The site-intelligence answer (`GET /v1/:siteId/site-intelligence`) and its cache, one row a site
 * in the store so every instance shares it (store/repos/site-intelligence-repo.ts).
 *
 * Rules: the pages and collections are kept 60 minutes, the prompt 5 (it states the local time);
 * a refresh (`invalidate`), another site version or a finished crawl (`crawled`) makes the row
 * stale sooner. A stale row is answered at once while one regeneration runs in the background:
 * one a site across instances (the row's lease, 2 minutes), a prompt alone when only the prompt
 * is stale. A failed regeneration gives its lease back and is logged at warn; the next stale read
 * tries again. With no row yet it is built while the reader waits; before the site's first crawl
 * finished the answer is 503 crawler_unavailable (a site that never had a crawl gets one queued),
 * but a site whose every crawl failed is answered without pages rather than 503 for ever.
 */
import crypto from "node:crypto";
import os from "node:os";
import type { Logger } from "pino";
import { errors } from "../errors.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { PublicSite, SiteConfig } from "../sites/site-types.ts";
import type { Store } from "../store/store.ts";
import type { CrawlRow } from "../store/repos/crawls-repo.ts";
import type { SiteIntelligenceRow } from "../store/repos/site-intelligence-repo.ts";
import { introspectCollections } from "./introspect-collections.ts";
import { buildPersonalityPrompt } from "./prompt.ts";
import type { PromptTemplates } from "./prompt-templates.ts";
import { responseOf } from "./site-intelligence-answer.ts";
import type {
  SessionView,
  SiteIntelligenceResponse,
  SitePage,
  SiteView,
} from "./site-intelligence-types.ts";
import type { KnowledgeReader } from "./knowledge/knowledge-types.ts";
import { sectionIdsFor, siteViewOf, type KnowledgeView } from "./site-pages.ts";

export const INTELLIGENCE_CACHE = {
  /** How long `site` and `data` are fresh. */
  dataMs: 60 * 60_000,
  /** How long the personality prompt is fresh. */
  promptMs: 5 * 60_000,
  /** How long one instance may hold a site's regeneration. */
  leaseMs: 2 * 60_000,
  /** Retry-After of the 503 before the first crawl finished. */
  retryAfterSeconds: 30,
} as const;

export interface SiteIntelligenceParts {
  store: Store;
  plugins: PluginHost;
  templates: PromptTemplates;
  logger: Logger;
  /** The site as the widget endpoints read it, for `crawled`, which has only the id. */
  sites: { publicSite(siteId: string): Promise<PublicSite | undefined> };
  /** The site's knowledge: each page's section count, when its index was built. */
  knowledge: Pick<KnowledgeReader, "pages" | "stats">;
  /** Queues a site's first crawl (one that never had any). */
  queueFirstCrawl: (siteId: string) => Promise<unknown>;
  now?: () => number;
  /** The lease owner's name: unique per instance. */
  instanceName?: string;
  /** Per collection; the search's deadline by default. */
  introspectionTimeoutMs?: number;
}

/** What a row needs: everything, the prompt alone, or nothing. */
type Need = "all" | "prompt" | undefined;

export class SiteIntelligenceService {
  readonly #now: () => number;
  readonly #owner: string;
  /** This instance's work under way (regenerations, crawls' ends), for `idle`. */
  readonly #running = new Set<Promise<void>>();
  /** The site ids this instance regenerates in the background now. */
  readonly #regenerating = new Set<string>();
  /** The first row of a site being built, shared by the readers that wait for it. */
  readonly #firstRows = new Map<string, Promise<SiteIntelligenceRow>>();

  constructor(private readonly parts: SiteIntelligenceParts) {
    this.#now = parts.now ?? Date.now;
    this.#owner = (
      parts.instanceName ??
      `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`
    ).slice(0, 100);
  }

  /** The answer for `target`; 503 crawler_unavailable before its first crawl finished. */
  async answer(target: PublicSite): Promise<SiteIntelligenceResponse> {
    const siteId = target.site.site_id;
    let row = await this.parts.store.siteIntelligence.get(siteId);
    if (row === undefined) {
      let first = this.#firstRows.get(siteId);
      if (first === undefined) {
        first = this.#firstRow(target).finally(() => this.#firstRows.delete(siteId));
        this.#firstRows.set(siteId, first);
      }
      row = await first;
    } else {
      const need = this.#need(row, target.version);
      if (need !== undefined) this.#inBackground(target, need);
    }
    return responseOf(row, target.site);
  }

  /** A crawl of the site ended: its row is rebuilt now with the new pages. Never rejects. */
  crawled(siteId: string): Promise<void> {
    return this.#track(
      (async () => {
        const target = await this.parts.sites.publicSite(siteId);
        if (target === undefined) return; // deleted meanwhile
        await this.parts.store.siteIntelligence.put(await this.#build(target));
      })().catch((err: unknown) =>
        this.parts.logger.warn({ err, site_id: siteId }, "site intelligence after a crawl failed"),
      ),
    );
  }

  /** A refresh: the row is stale from now on (nothing when the site has none yet). */
  async invalidate(siteId: string): Promise<void> {
    await this.parts.store.siteIntelligence.invalidate(siteId, this.#now());
  }

  /** The pages a voice session is told about and the ids scroll_to takes, for `pageUrl`. */
  async sessionView(site: SiteConfig, pageUrl?: string): Promise<SessionView> {
    const row = await this.parts.store.siteIntelligence.get(site.site_id);
    let pages: SitePage[] = [];
    if (row?.site != null) pages = (JSON.parse(row.site) as SiteView).pages;
    else {
      const crawl = await this.parts.store.crawls.latestDone(site.site_id);
      if (crawl !== undefined) pages = siteViewOf(crawl, site.domain).pages;
    }
    return { pages, ...sectionIdsFor(pages, pageUrl) };
  }

  /** Resolves once this instance's background work has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  #need(row: SiteIntelligenceRow, version: number): Need {
    const now = this.#now();
    if (
      row.site_version !== version ||
      row.invalidated_at !== null ||
      now - row.generated_at >= INTELLIGENCE_CACHE.dataMs
    ) {
      return "all";
    }
    return now - row.prompt_generated_at >= INTELLIGENCE_CACHE.promptMs ? "prompt" : undefined;
  }

  /** The row of a site that has none: 503 (a crawl queued if it never had one) before any. */
  async #firstRow(target: PublicSite): Promise<SiteIntelligenceRow> {
    const siteId = target.site.site_id;
    const { crawls } = this.parts.store;
    const crawl = await crawls.latestDone(siteId);
    if (crawl === undefined) {
      if ((await crawls.active(siteId)) !== undefined) throw this.#unavailable();
      if (!(await crawls.any(siteId))) {
        await this.parts.queueFirstCrawl(siteId);
        throw this.#unavailable();
      }
      // Every crawl failed: answered without pages rather than 503 until someone refreshes.
    }
    const row = await this.#build(target, crawl ?? null);
    await this.parts.store.siteIntelligence.put(row);
    return row;
  }

  #unavailable() {
    return errors.crawlerUnavailable(INTELLIGENCE_CACHE.retryAfterSeconds);
  }

  /** Starts a regeneration unless this instance runs one for the site; never rejects. */
  #inBackground(target: PublicSite, need: "all" | "prompt"): void {
    const siteId = target.site.site_id;
    if (this.#regenerating.has(siteId)) return;
    this.#regenerating.add(siteId);
    void this.#track(
      this.#regenerate(target, need)
        .catch((err: unknown) =>
          this.parts.logger.warn({ err, site_id: siteId }, "site intelligence regeneration failed"),
        )
        .finally(() => this.#regenerating.delete(siteId)),
    );
  }

  /**
   * Under the row's lease: read again (another instance may have just written it) and rebuild
   * what is still stale; the lease is given back however it ends.
   */
  async #regenerate(target: PublicSite, need: "all" | "prompt"): Promise<void> {
    const siteId = target.site.site_id;
    const repo = this.parts.store.siteIntelligence;
    const now = this.#now();
    if (!(await repo.lease(siteId, this.#owner, now, now + INTELLIGENCE_CACHE.leaseMs))) return;
    try {
      const row = await repo.get(siteId);
      const still = row === undefined ? need : this.#need(row, target.version);
      if (row !== undefined && still === "prompt") {
        const at = this.#now();
        const view = row.site === null ? undefined : (JSON.parse(row.site) as SiteView);
        await repo.putPrompt(siteId, this.#prompt(target.site, view, at), at);
      } else if (still === "all") {
        await repo.put(await this.#build(target));
      }
    } finally {
      await repo.releaseLease(siteId, this.#owner);
    }
  }

  /**
   * A whole row: the pages of `crawl` (by default the latest done one), each collection
   * introspected, the prompt. `generated_at` is when the build started, before anything was read.
   */
  async #build(target: PublicSite, crawl?: CrawlRow | null): Promise<SiteIntelligenceRow> {
    const at = this.#now();
    const { site } = target;
    const done =
      crawl === undefined ? await this.parts.store.crawls.latestDone(site.site_id) : crawl;
    const view =
      done == null ? undefined : siteViewOf(done, site.domain, await this.#knowledge(site.site_id));
    const data = await introspectCollections(this.parts.plugins, site, {
      logger: this.parts.logger,
      timeoutMs: this.parts.introspectionTimeoutMs,
    });
    return {
      site_id: site.site_id,
      site_version: target.version,
      crawl_id: done?.id ?? null,
      site: view === undefined ? null : JSON.stringify(view),
      data: JSON.stringify(data ?? { collections: [] }),
      generated_at: at,
      prompt: this.#prompt(site, view, at),
      prompt_generated_at: at,
      invalidated_at: null,
      regen_owner: null,
      regen_until: null,
    };
  }

  async #knowledge(siteId: string): Promise<KnowledgeView> {
    const { knowledge } = this.parts;
    const [pages, stats] = await Promise.all([knowledge.pages(siteId), knowledge.stats(siteId)]);
    return {
      sections: new Map(pages.map((page) => [page.url, page.sections])),
      updatedAt: stats.indexed_at,
    };
  }

  /** The prompt a voice session of the site gets, with search_site when its knowledge has text. */
  #prompt(site: SiteConfig, view: SiteView | undefined, at: number): string {
    return buildPersonalityPrompt(site, {
      now: new Date(at),
      templates: this.parts.templates,
      pages: view?.pages ?? [],
      // A view stored before the site's knowledge existed has no `knowledge`.
      knowledge: (view?.knowledge as SiteView["knowledge"] | undefined)?.updatedAt != null,
    });
  }

  #track(work: Promise<void>): Promise<void> {
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work));
    return work;
  }
}
