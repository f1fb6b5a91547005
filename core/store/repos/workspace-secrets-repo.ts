/**
 * The secrets a workspace keeps of its own (migration 022), sealed: the key of its visitor IDs.
 * Made on first use by whichever instance needs it first; the store keeps the first one written.
 */
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";

export interface WorkspaceSecretRow {
  workspace_id: string;
  /** The key visitor IDs are a keyed hash under, sealed. */
  visitor_id_key: string;
  created_at: number;
}

const TABLE = "workspace_secrets";

export class WorkspaceSecretsRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /** The workspace's sealed visitor-ID key; undefined until its first visitor. */
  async visitorIdKey(workspaceId: string): Promise<string | undefined> {
    const row = await this.knex<WorkspaceSecretRow>(TABLE)
      .where({ workspace_id: workspaceId })
      .first("visitor_id_key");
    return row?.visitor_id_key;
  }

  /**
   * Keeps `row` unless the workspace has a key already (another instance wrote it first), and
   * answers the key the store keeps: the one every instance uses from then on.
   */
  async keepFirstVisitorIdKey(row: WorkspaceSecretRow): Promise<string> {
    await insertSkippingDuplicate(
      this.knex,
      TABLE,
      row,
      ["workspace_id"],
      this.client,
      "workspace_id",
    );
    const kept = await this.visitorIdKey(row.workspace_id);
    if (kept === undefined) throw new Error(`workspace ${row.workspace_id} has no visitor-ID key`);
    return kept;
  }

  /** Every workspace's sealed key, for `secrets rotate`. */
  async allSealed(): Promise<Pick<WorkspaceSecretRow, "workspace_id" | "visitor_id_key">[]> {
    return this.knex(TABLE).orderBy("workspace_id").select("workspace_id", "visitor_id_key");
  }

  /** Writes the key sealed anew, if it is still `read` (it never changes, only its seal). */
  async reseal(workspaceId: string, read: string, resealed: string): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ workspace_id: workspaceId, visitor_id_key: read })
      .update({ visitor_id_key: resealed });
    return changed === 1;
  }
}
