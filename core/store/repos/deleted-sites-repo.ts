/**
 * Deleted sites whose usage data is still to be removed (migration 014), and that removal a
 * bounded batch at a time: the site's raw usage events, quarter-hour rollups and day rollups.
 */
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";

/** The tables that keep a site's usage after the site (no foreign key), each with its order. */
export const SITE_USAGE_TABLES = {
  usage_events: "created_at",
  usage_rollups: "bucket_start",
  usage_day_rollups: "day_start",
} as const;
export type SiteUsageTable = keyof typeof SITE_USAGE_TABLES;

export class DeletedSitesRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /** Records that `siteId` was deleted (in the deleting transaction); again changes nothing. */
  async mark(siteId: string, workspaceId: string, at: number): Promise<void> {
    const row = { site_id: siteId, workspace_id: workspaceId, deleted_at: at };
    await insertSkippingDuplicate(
      this.knex,
      "deleted_sites",
      row,
      ["site_id"],
      this.client,
      "site_id",
    );
  }

  /** Whether `siteId` was deleted and its usage data is not all removed yet. */
  async has(siteId: string): Promise<boolean> {
    return (await this.knex("deleted_sites").where({ site_id: siteId }).first()) !== undefined;
  }

  /** Up to `limit` deleted sites still to clear, those deleted first first. */
  async list(limit: number): Promise<string[]> {
    return this.knex("deleted_sites").orderBy("deleted_at").limit(limit).pluck("site_id");
  }

  /** Clears the mark once the site's usage data is gone. */
  async forget(siteId: string): Promise<void> {
    await this.knex("deleted_sites").where({ site_id: siteId }).delete();
  }

  /**
   * Deletes the oldest of the site's rows in `table`: up to `limit` of them, and any that share
   * the last one's time (a handful at most); how many. Fewer than `limit` means none are left.
   */
  async deleteUsage(siteId: string, table: SiteUsageTable, limit: number): Promise<number> {
    const column = SITE_USAGE_TABLES[table];
    const times: unknown[] = await this.knex(table)
      .where({ site_id: siteId })
      .orderBy(column)
      .limit(limit)
      .pluck(column);
    if (times.length === 0) return 0;
    return this.knex(table)
      .where({ site_id: siteId })
      .where(column, "<=", times.at(-1) as number)
      .delete();
  }
}
