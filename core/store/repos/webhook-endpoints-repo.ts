/**
 * Webhook endpoints: what a workspace subscribes (migration 007). The secrets are stored sealed;
 * `events` and `site_ids` are JSON arrays. Delivery state (failures in a row, the pause a
 * receiver asked for, disabling) is written by the dispatcher's repository; the API writes it
 * only to disable an endpoint or to re-enable one afresh.
 */
import { newestFirst } from "../newest-first.ts";
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

/** Keyset position: endpoints are listed newest first, ties broken by id. */
export interface WebhookEndpointCursor {
  created_at: number;
  id: string;
}

/** What the API changes of an endpoint: its subscription, and its state when (re-)enabling. */
export type WebhookEndpointChanges = Partial<
  Pick<
    WebhookEndpointRow,
    | "url"
    | "description"
    | "events"
    | "site_ids"
    | "enabled"
    | "consecutive_failures"
    | "failing_since"
    | "disabled_at"
    | "disabled_reason"
    | "paused_until"
  >
> & { updated_at: number };

/** The sealed secrets of an endpoint, as `secrets rotate` reads and rewrites them. */
export type WebhookEndpointSecrets = Pick<WebhookEndpointRow, "secret" | "previous_secret">;

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

  async insert(row: WebhookEndpointRow): Promise<void> {
    await this.knex("webhook_endpoints").insert(row);
  }

  /** One page of the workspace's endpoints, newest first, from after `before`. */
  async page(
    workspaceId: string,
    query: { limit: number; before?: WebhookEndpointCursor },
  ): Promise<WebhookEndpointRow[]> {
    const q = this.knex<WebhookEndpointRow>("webhook_endpoints").where({
      workspace_id: workspaceId,
    });
    const rows = await newestFirst(q, query.before).limit(query.limit);
    return rows.map(endpointRow);
  }

  async countOfWorkspace(workspaceId: string): Promise<number> {
    const row = await this.knex("webhook_endpoints")
      .where({ workspace_id: workspaceId })
      .count<{ n: number | string }>({ n: "*" })
      .first();
    return Number(row?.n ?? 0);
  }

  /** Writes `changes`; false when the endpoint is gone. */
  async update(id: string, changes: WebhookEndpointChanges): Promise<boolean> {
    return (await this.knex("webhook_endpoints").where({ id }).update(changes)) > 0;
  }

  /** Deletes the endpoint; its deliveries and their attempts go with it (ON DELETE CASCADE). */
  async delete(id: string): Promise<boolean> {
    return (await this.knex("webhook_endpoints").where({ id }).delete()) > 0;
  }

  /**
   * Makes `secret` (sealed) the endpoint's secret and the one it replaces the previous one, which
   * still signs until `previousUntil`; an older previous secret is dropped. One statement, so
   * two rotations at once both count: the later one keeps the earlier one's secret as previous.
   * (`previous_secret` is assigned first: MySQL assigns left to right, the others from the old
   * row.) False when the endpoint is gone.
   */
  async rotateSecret(
    id: string,
    secret: string,
    previousUntil: number,
    at: number,
  ): Promise<boolean> {
    const changed = await this.knex("webhook_endpoints")
      .where({ id })
      .update({
        previous_secret: this.knex.ref("secret"),
        secret,
        previous_secret_until: previousUntil,
        updated_at: at,
      });
    return changed > 0;
  }

  /** Every endpoint id, for store-wide maintenance such as re-sealing secrets. */
  async allIds(): Promise<string[]> {
    const rows = await this.knex("webhook_endpoints").orderBy("id").select<{ id: string }[]>("id");
    return rows.map((r) => r.id);
  }

  /**
   * Rewrites the sealed secrets in place, only if they are still `read` (a rotation through the
   * API meanwhile is not undone); false when they changed or the endpoint is gone.
   */
  async reseal(
    id: string,
    read: WebhookEndpointSecrets,
    resealed: WebhookEndpointSecrets,
  ): Promise<boolean> {
    const q = this.knex("webhook_endpoints").where({ id, secret: read.secret });
    if (read.previous_secret === null) q.whereNull("previous_secret");
    else q.where({ previous_secret: read.previous_secret });
    return (await q.update(resealed)) > 0;
  }
}
