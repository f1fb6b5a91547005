/**
 * The per-site cache: stored site rows kept in memory, dropped when a site changes on this or any
 * other instance (the API reference: a change is effective everywhere within 5 seconds).
 *
 * Three things keep it from serving a stale row: every change is published on a channel all
 * instances listen to; a row is never kept from a read that overlapped a change; and while the
 * channel cannot hear changes, nothing is cached at all. A TTL bounds whatever slips through.
 */
import { LRUCache } from "lru-cache";
import { localChannel, MAYBE_MISSED, type Channel } from "../pubsub/channel.ts";
import type { SiteRow } from "../store/repos/sites-repo.ts";

/** The site change channel: its messages are site ids (core/sites/site-change-channels.ts). */
export type SiteChangeChannel = Channel;

/** What listeners get when every site may have changed. */
export const ALL_SITES = MAYBE_MISSED;

export interface SiteCacheOptions {
  /**
   * How long a row may be served from memory, counted from when its read began. A safety net
   * for changes no channel carries (another process writing the same store, a lost message).
   */
  ttlMs?: number;
  /** Sites held at most: the most recently read stay, so memory stays bounded with many sites. */
  maxEntries?: number;
  now?: () => number;
}

/** Whether `b` is `a` read again: every column the same. */
function sameRow(a: SiteRow, b: SiteRow | undefined): boolean {
  return (
    b !== undefined &&
    a.version === b.version &&
    a.updated_at === b.updated_at &&
    a.content_hash === b.content_hash &&
    a.config === b.config &&
    a.workspace_id === b.workspace_id &&
    a.site_id === b.site_id &&
    a.business_name === b.business_name &&
    a.domain === b.domain &&
    a.created_at === b.created_at
  );
}

/** Without a channel to other instances, 5 s is what keeps the API reference's promise on its own. */
export const DEFAULT_SITE_CACHE_TTL_MS = 5_000;

interface Held {
  row: SiteRow;
  expiresAt: number;
}

/** Reads of one site in flight, and how many times the site changed since the first began. */
interface Loading {
  reads: number;
  changes: number;
}

const MAX_SITES_HELD = 10_000;

export class SiteCache {
  private readonly rows: LRUCache<string, Held>;
  private readonly loading = new Map<string, Loading>();
  /** Bumped by `"*"`: a read that began before it must not keep its row. */
  private epoch = 0;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly channel: SiteChangeChannel = localChannel(),
    options: SiteCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_SITE_CACHE_TTL_MS;
    this.rows = new LRUCache<string, Held>({ max: options.maxEntries ?? MAX_SITES_HELD });
    this.now = options.now ?? Date.now;
    channel.subscribe((siteId) => this.invalidate(siteId));
  }

  /** How many sites are held (bounded by `maxEntries`). */
  get size(): number {
    return this.rows.size;
  }

  /**
   * The row of `siteId`: from memory when held and fresh, else from `load` (and then held, unless
   * the site changed while it loaded or the channel is down).
   */
  async get(
    siteId: string,
    load: (siteId: string) => Promise<SiteRow | undefined>,
  ): Promise<SiteRow | undefined> {
    if (!this.channel.connected) {
      // Changes may be passing unheard: whatever is held may be stale, and so would a new row be.
      this.rows.clear();
      return load(siteId);
    }
    const at = this.now();
    const held = this.rows.get(siteId);
    if (held !== undefined) {
      if (at < held.expiresAt) return held.row;
      this.rows.delete(siteId);
    }
    const previous = held?.row;
    const loading = this.loading.get(siteId) ?? { reads: 0, changes: 0 };
    this.loading.set(siteId, loading);
    loading.reads++;
    const changes = loading.changes;
    const epoch = this.epoch;
    try {
      const loaded = await load(siteId);
      // The same row read again keeps its object, and with it what was derived from it (the
      // decoded site, its origins, its adapter instance's quick lookup).
      const row = previous !== undefined && sameRow(previous, loaded) ? previous : loaded;
      const unchanged = loading.changes === changes && this.epoch === epoch;
      if (row !== undefined && unchanged && this.channel.connected) {
        // From when the read began: the row can be no older than that.
        this.rows.set(siteId, { row, expiresAt: at + this.ttlMs });
      }
      return row;
    } finally {
      if (--loading.reads === 0) this.loading.delete(siteId);
    }
  }

  /** Drops `siteId` here at once and tells the other instances. Call after the write committed. */
  async changed(siteId: string): Promise<void> {
    this.invalidate(siteId);
    await this.channel.publish(siteId);
  }

  async close(): Promise<void> {
    this.rows.clear();
    await this.channel.close();
  }

  private invalidate(siteId: string): void {
    if (siteId === ALL_SITES) {
      this.epoch++;
      this.rows.clear();
      return;
    }
    this.rows.delete(siteId);
    const loading = this.loading.get(siteId);
    if (loading !== undefined) loading.changes++;
  }
}
