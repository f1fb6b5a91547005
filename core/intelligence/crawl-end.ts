/**
 * How a crawl's end is written: its outcome and what it changed of the site's knowledge, in one
 * transaction, whole or not at all. When the store refuses the knowledge (larger than MariaDB's
 * max_allowed_packet, a connection lost), the end is written without it, so the crawl is not
 * left under way to run again and again; the knowledge stays as it was before the crawl.
 */
import type { Logger } from "pino";
import type { CrawlOutcome, CrawlRow } from "../store/repos/crawls-repo.ts";
import type { Store } from "../store/store.ts";
import type { KnowledgeUpdate } from "./knowledge/crawl-knowledge.ts";

export interface CrawlEnd {
  crawlId: string;
  siteId: string;
  /** The instance holding the crawl's lease. */
  owner: string;
  outcome: CrawlOutcome;
  update: KnowledgeUpdate | undefined;
}

/**
 * The crawl as it ended, and its knowledge update as written (its writes dropped, its counts
 * kept, when the store refused them); undefined when another instance took the crawl's lease
 * (nothing is written then).
 */
export async function recordCrawlEnd(
  parts: { store: Store; logger: Logger },
  end: CrawlEnd,
): Promise<{ ended: CrawlRow; update: KnowledgeUpdate | undefined } | undefined> {
  try {
    const ended = await write(parts.store, end, end.update);
    return ended === undefined ? undefined : { ended, update: end.update };
  } catch (err) {
    if (end.update === undefined) throw err;
    parts.logger.warn(
      { err, crawl_id: end.crawlId, site_id: end.siteId },
      "site knowledge not stored: the crawl's end is recorded without it",
    );
    // The counts of what the crawl found stand; its writes do not.
    const counted = { ...end.update, write: async () => {}, committed: () => {} };
    const ended = await write(parts.store, end, counted);
    return ended === undefined ? undefined : { ended, update: counted };
  }
}

function write(
  store: Store,
  end: CrawlEnd,
  update: KnowledgeUpdate | undefined,
): Promise<CrawlRow | undefined> {
  return store.transaction(async (tx) => {
    const counts = { ...end.outcome, ...update?.counts };
    if (!(await tx.crawls.finish(end.crawlId, end.owner, counts))) return undefined;
    await update?.write(tx);
    return tx.crawls.get(end.crawlId);
  });
}
