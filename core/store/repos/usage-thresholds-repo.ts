/**
 * The usage thresholds recorded (migration 011): which percents of its plan's minutes a
 * workspace's `usage.threshold` events have announced in a month.
 */
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";

export const THRESHOLDS_TABLE = "usage_thresholds";

export interface UsageThresholdRow {
  id: string;
  workspace_id: string;
  /** The calendar month (UTC), `YYYY-MM`. */
  month: string;
  percent: number;
  created_at: number;
}

export class UsageThresholdsRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * Stores `row` unless its workspace, month and percent are stored already; whether it is new.
   * Two transactions marking the same percent settle on the key: the second insert waits for the
   * first to commit and skips, then reads the first's row. It must be the first statement of its
   * transaction: MySQL's plain reads see the snapshot of the transaction's first read.
   */
  async mark(row: UsageThresholdRow): Promise<boolean> {
    const key = { workspace_id: row.workspace_id, month: row.month, percent: row.percent };
    await insertSkippingDuplicate(this.knex, THRESHOLDS_TABLE, row, Object.keys(key), this.client);
    const stored = await this.knex<UsageThresholdRow>(THRESHOLDS_TABLE).where(key).first("id");
    return stored?.id === row.id;
  }

  /** The percents recorded for the workspace in `month`, smallest first. */
  async percents(workspaceId: string, month: string): Promise<number[]> {
    const rows = await this.knex<UsageThresholdRow>(THRESHOLDS_TABLE)
      .where({ workspace_id: workspaceId, month })
      .orderBy("percent")
      .select("percent");
    return rows.map((row) => Number(row.percent));
  }
}
