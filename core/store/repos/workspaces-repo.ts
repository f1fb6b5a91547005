import type { Knex } from "knex";
import type { Plan } from "../../settings.ts";

export interface WorkspaceRow {
  id: string;
  name: string;
  plan: Plan;
  created_at: number;
  /** Where the workspace's notices go; null or absent when none is known. */
  contact_email?: string | null;
}

export class WorkspacesRepo {
  constructor(private readonly knex: Knex) {}

  async insert(row: WorkspaceRow): Promise<void> {
    await this.knex("workspaces").insert(row);
  }

  async get(id: string): Promise<WorkspaceRow | undefined> {
    return this.knex<WorkspaceRow>("workspaces").where({ id }).first();
  }

  /** The oldest workspace: the one `npm start` created on first start. */
  async first(): Promise<WorkspaceRow | undefined> {
    return this.knex<WorkspaceRow>("workspaces")
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .first();
  }

  /** Every workspace, oldest first (the first is the default one). */
  async list(): Promise<WorkspaceRow[]> {
    return this.knex<WorkspaceRow>("workspaces").orderBy([
      { column: "created_at" },
      { column: "id" },
    ]);
  }

  async setPlan(id: string, plan: Plan): Promise<void> {
    await this.knex("workspaces").where({ id }).update({ plan });
  }

  async setContactEmail(id: string, email: string | null): Promise<void> {
    await this.knex("workspaces").where({ id }).update({ contact_email: email });
  }

  /**
   * The address mails for the workspace's owner go to (a webhook endpoint disabled): until
   * accounts exist, the workspace's contact email. Undefined when it has none (or no workspace).
   */
  async ownerEmail(id: string): Promise<string | undefined> {
    const row = await this.knex<WorkspaceRow>("workspaces").where({ id }).first("contact_email");
    return row?.contact_email ?? undefined;
  }

  /**
   * Locks the workspace row until the transaction ends (PostgreSQL, MySQL), so two creates cannot
   * both pass the plan's site count. SQLite serializes writers already.
   */
  async lock(id: string, client: string): Promise<void> {
    if (client === "sqlite") return;
    await this.knex("workspaces").where({ id }).forUpdate().first("id");
  }
}
