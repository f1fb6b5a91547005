/**
 * "What the assistant knows" on a site's page, as htmx fragments: what the site's knowledge
 * holds (its counts, each page with its sections, the pages the latest crawl could not index),
 * and the passages a question finds, exactly those the agent's search_site would get.
 */
import { Router, type Request } from "express";
import {
  KNOWLEDGE_QUERY,
  knowledgeQueryText,
} from "../../intelligence/knowledge/knowledge-query.ts";
import type { KnowledgeReader } from "../../intelligence/knowledge/knowledge-types.ts";
import type { SiteService } from "../../sites/site-service.ts";
import type { Renderer } from "./render.ts";
import { inWorkspace, localsOf } from "./workspace-context.ts";

export interface KnowledgePagesParts {
  sites: Pick<SiteService, "assertOwned">;
  knowledge: KnowledgeReader;
}

/** Pages the summary lists (a site may have thousands; the CLI and API count them all). */
const PAGES_SHOWN = 200;

export function knowledgePages(parts: KnowledgePagesParts, render: Renderer): Router {
  const router = Router();
  const { knowledge } = parts;

  /** The site of `:id`, once the member is known to see it (404 for another workspace's). */
  const ownedSite = async (req: Request, res: Parameters<typeof localsOf>[0]) => {
    const siteId = req.params.id as string;
    await parts.sites.assertOwned(localsOf(res).principal, siteId);
    return siteId;
  };

  router.get("/sites/:id/knowledge", inWorkspace, async (req, res) => {
    const siteId = await ownedSite(req, res);
    const [stats, pages, failures] = await Promise.all([
      knowledge.stats(siteId),
      knowledge.pages(siteId),
      knowledge.failures(siteId),
    ]);
    render.fragment(res, "knowledge-summary", {
      stats,
      languages: stats.languages.join(", "),
      pages: pages.slice(0, PAGES_SHOWN),
      morePages: Math.max(0, pages.length - PAGES_SHOWN),
      failures,
    });
  });

  router.get("/sites/:id/knowledge/search", inWorkspace, async (req, res) => {
    const siteId = await ownedSite(req, res);
    const raw = typeof req.query.q === "string" ? req.query.q : undefined;
    const question = knowledgeQueryText(raw, "question");
    const hits = await knowledge.search(siteId, question, KNOWLEDGE_QUERY.maxLimit);
    render.fragment(res, "knowledge-hits", {
      question,
      hits: hits.map((hit) => ({
        ...hit,
        score: hit.score.toFixed(2),
        link: hit.section_id === null ? hit.url : `${hit.url}#${hit.section_id}`,
      })),
    });
  });

  return router;
}
