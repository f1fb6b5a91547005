/**
 * A crawl as `GET /v1/sites/:id/crawls` shows it: its trigger and status, when it started and
 * finished (ISO 8601, null until then), its duration, the pages it found, what it found of their
 * text (pages asked for, unchanged, changed, removed) and the errors it met (the first 100).
 * The pages themselves are site intelligence's (the site-intelligence endpoint).
 */
import type { CrawlRow, CrawlStatus, CrawlTrigger } from "../store/repos/crawls-repo.ts";
import type { CrawlError } from "./crawler/index.ts";

export interface CrawlView {
  id: string;
  trigger: CrawlTrigger;
  status: CrawlStatus;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  pages: number;
  /** Page URLs asked for (a 304 and a failure included). */
  pages_fetched: number;
  /** Pages that answered 304, or with the same text as before. */
  pages_unchanged: number;
  /** Pages new, or whose text changed (indexed again). */
  pages_changed: number;
  /** Pages kept before that this crawl found no more (their passages left the index). */
  pages_removed: number;
  errors: CrawlError[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function crawlView(row: CrawlRow): CrawlView {
  const finished = row.status === "done" || row.status === "failed";
  return {
    id: row.id,
    trigger: row.trigger,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    started_at: iso(row.started_at),
    finished_at: finished ? iso(row.finished_at) : null,
    duration_ms:
      finished && row.started_at !== null && row.finished_at !== null
        ? row.finished_at - row.started_at
        : null,
    pages: row.page_count,
    pages_fetched: row.pages_fetched,
    pages_unchanged: row.pages_unchanged,
    pages_changed: row.pages_changed,
    pages_removed: row.pages_removed,
    errors: row.errors === null ? [] : (JSON.parse(row.errors) as CrawlError[]),
  };
}
