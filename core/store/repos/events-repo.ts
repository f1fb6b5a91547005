import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";

export interface UsageEventRow {
  id: string;
  site_id: string;
  session_id: string | null;
  type: string;
  function_name: string | null;
  duration_seconds: number | null;
  cost_cents: number | null;
  /** JSON object or null. */
  metadata: string | null;
  client_event_id: string | null;
  created_at: number;
}

export interface ServiceEventRow {
  id: string;
  type: string;
  workspace_id: string;
  site_id: string | null;
  /** JSON. */
  data: string;
  created_at: number;
}

export class EventsRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * Inserts usage events in one statement; a row whose (site_id, client_event_id) is already
   * stored is skipped (usageByClientIds then finds the first one, to answer a retry with its id).
   */
  async insertUsage(rows: UsageEventRow[]): Promise<void> {
    if (rows.length === 0) return;
    const key = ["site_id", "client_event_id"];
    await insertSkippingDuplicate(this.knex, "usage_events", rows, key, this.client);
  }

  async usageByClientIds(siteId: string, clientIds: string[]): Promise<UsageEventRow[]> {
    if (clientIds.length === 0) return [];
    return this.knex<UsageEventRow>("usage_events")
      .where({ site_id: siteId })
      .whereIn("client_event_id", clientIds);
  }

  async countUsage(siteId: string): Promise<number> {
    const row = await this.knex("usage_events")
      .where({ site_id: siteId })
      .count<{ n: number | string }>({ n: "*" })
      .first();
    return Number(row?.n ?? 0);
  }

  async listUsage(siteId: string, limit = 1000): Promise<UsageEventRow[]> {
    return this.knex<UsageEventRow>("usage_events")
      .where({ site_id: siteId })
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .limit(limit);
  }

  async insertService(rows: ServiceEventRow[]): Promise<void> {
    if (rows.length > 0) await this.knex("service_events").insert(rows);
  }

  /** Service events of the given types (those with sealed fields, to re-seal them). */
  async serviceOfTypes(types: readonly string[]): Promise<ServiceEventRow[]> {
    if (types.length === 0) return [];
    return this.knex<ServiceEventRow>("service_events").whereIn("type", types);
  }

  async resealService(id: string, data: string): Promise<void> {
    await this.knex("service_events").where({ id }).update({ data });
  }

  async listService(workspaceId: string, limit = 1000): Promise<ServiceEventRow[]> {
    return this.knex<ServiceEventRow>("service_events")
      .where({ workspace_id: workspaceId })
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .limit(limit);
  }
}
