/**
 * The part of the composition root (core/compose.ts) that makes site intelligence, the sites'
 * knowledge and the crawls: each needs the other (a site never crawled asks for its first crawl;
 * a crawl's end stores the knowledge and tells intelligence, a refresh tells intelligence), and
 * they have something to close, in order.
 */
import type { Logger } from "pino";
import type { PluginHost } from "../host/plugin-host.ts";
import { pluginNetwork } from "../host/plugin-network.ts";
import type { OutboundPolicy } from "../security/outbound-policy.ts";
import type { Settings } from "../settings.ts";
import type { SiteChangeChannel } from "../sites/site-cache.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { Store } from "../store/store.ts";
import { CrawlService } from "./crawl-service.ts";
import { CrawlKnowledge } from "./knowledge/crawl-knowledge.ts";
import { knowledgeEmbedder } from "./knowledge/knowledge-embedder.ts";
import { KnowledgeService } from "./knowledge/knowledge-service.ts";
import type { PromptTemplates } from "./prompt-templates.ts";
import { SiteIntelligenceService } from "./site-intelligence-service.ts";

export function composeIntelligence(
  parts: { store: Store; sites: SiteService; plugins: PluginHost; templates: PromptTemplates },
  context: {
    settings: Readonly<Settings>;
    logger: Logger;
    outbound: OutboundPolicy;
    channel: SiteChangeChannel;
    /** The root's closers, run in reverse: what is pushed last closes first. */
    closers: (() => Promise<void> | void)[];
  },
): { intelligence: SiteIntelligenceService; crawls: CrawlService; knowledge: KnowledgeService } {
  const { settings, logger, closers } = context;
  // The provider of SITEVOICE_EMBEDDINGS, or none: then nothing is embedded or sent anywhere.
  const embedder = knowledgeEmbedder({ plugins: parts.plugins, settings });
  // Searched from memory; a deleted site's index leaves with it (the site change channel).
  const knowledge = new KnowledgeService({
    store: parts.store,
    logger,
    cacheBytes: settings.caches.knowledgeMb * 1024 * 1024,
    channel: context.channel,
    embedder,
  });
  closers.push(() => knowledge.idle());
  const intelligence = new SiteIntelligenceService({
    ...parts,
    logger,
    knowledge,
    // A site never crawled (made before crawls existed) gets its first crawl when asked about.
    queueFirstCrawl: async (siteId) => void (await crawls.queue(siteId, "created")),
  });
  // Its background regenerations end before the plugins and the store close.
  closers.push(() => intelligence.idle());
  // The crawler's own connections, under the same policy as every outbound request.
  const network = pluginNetwork(context.outbound);
  closers.push(async () => network.close?.());
  const crawls = new CrawlService({
    store: parts.store,
    sites: parts.sites,
    request: network.request,
    settings,
    logger,
    intelligence,
    knowledge: new CrawlKnowledge({ store: parts.store, holder: knowledge, logger, embedder }),
  });
  // A site changed anywhere may have queued a crawl with it: its job is made at once.
  context.channel.subscribe(() => crawls.wake());
  // Stopped first on close: crawls under way are given back before anything closes.
  closers.push(() => crawls.stop());
  return { intelligence, crawls, knowledge };
}
