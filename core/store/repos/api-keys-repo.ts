import type { Knex } from "knex";

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  mode: "live" | "test";
  last4: string;
  key_hash: string;
  /** JSON array of scopes. */
  scopes: string;
  /** JSON array of site ids, or null for every site of the workspace. */
  site_ids: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export class ApiKeysRepo {
  constructor(private readonly knex: Knex) {}

  async insert(row: ApiKeyRow): Promise<void> {
    await this.knex("api_keys").insert(row);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    return this.knex<ApiKeyRow>("api_keys").where({ key_hash: keyHash }).first();
  }

  async list(workspaceId: string): Promise<ApiKeyRow[]> {
    return this.knex<ApiKeyRow>("api_keys")
      .where({ workspace_id: workspaceId })
      .orderBy([{ column: "created_at" }, { column: "id" }]);
  }

  async countActive(workspaceId: string): Promise<number> {
    const row = await this.knex("api_keys")
      .where({ workspace_id: workspaceId })
      .whereNull("revoked_at")
      .count<{ n: number | string }>({ n: "*" })
      .first();
    return Number(row?.n ?? 0);
  }

  /** Revokes at once; returns false when the key is unknown or already revoked. */
  async revoke(workspaceId: string, id: string, at: number): Promise<boolean> {
    const changed = await this.knex("api_keys")
      .where({ workspace_id: workspaceId, id })
      .whereNull("revoked_at")
      .update({ revoked_at: at });
    return changed > 0;
  }

  /** Records use, at most once a minute per key so a busy key does not write on every request. */
  async touch(id: string, at: number): Promise<void> {
    await this.knex("api_keys")
      .where({ id })
      .andWhere((q) => q.whereNull("last_used_at").orWhere("last_used_at", "<", at - 60_000))
      .update({ last_used_at: at });
  }
}
