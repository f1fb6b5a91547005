/**
 * Webhook endpoints: what a workspace subscribes (migration 007). The secrets are stored sealed;
 * `events` and `site_ids` are JSON arrays. Delivery state (failures in a row, the pause a
 * receiver asked for, disabling) is written by the dispatcher's repository.
 */
import type { Knex } from "knex";

export interface WebhookEndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  /** JSON array of event types. */
  events: string;
  /** JSON array of site ids, or null for every site of the workspace. */
  site_ids: string | null;
  enabled: boolean | number;
  /** Sealed. */
  secret: string;
  /** Sealed; signs beside `secret` until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: number | null;
  consecutive_failures: number;
  failing_since: number | null;
  disabled_at: number | null;
  disabled_reason: string | null;
  paused_until: number | null;
  created_at: number;
  updated_at: number;
}

/** Numbers as numbers and the flag as a boolean, whatever the driver gave. */
export function endpointRow(raw: WebhookEndpointRow): WebhookEndpointRow {
  const num = (value: unknown) => (value === null ? null : Number(value));
  return {
    ...raw,
    enabled: Boolean(raw.enabled),
    previous_secret_until: num(raw.previous_secret_until),
    consecutive_failures: Number(raw.consecutive_failures),
    failing_since: num(raw.failing_since),
    disabled_at: num(raw.disabled_at),
    paused_until: num(raw.paused_until),
    created_at: Number(raw.created_at),
    updated_at: Number(raw.updated_at),
  };
}

export class WebhookEndpointsRepo {
  constructor(private readonly knex: Knex) {}

  async get(id: string): Promise<WebhookEndpointRow | undefined> {
    const raw = await this.knex<WebhookEndpointRow>("webhook_endpoints").where({ id }).first();
    return raw === undefined ? undefined : endpointRow(raw);
  }

  /** Every endpoint of the workspace, enabled or not, oldest first. */
  async ofWorkspace(workspaceId: string): Promise<WebhookEndpointRow[]> {
    const rows = await this.knex<WebhookEndpointRow>("webhook_endpoints")
      .where({ workspace_id: workspaceId })
      .orderBy([{ column: "created_at" }, { column: "id" }]);
    return rows.map(endpointRow);
  }
}
