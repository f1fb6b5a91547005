/**
 * Webhook endpoints as the API manages them (`/v1/webhooks`): create, list, read, patch, delete
 * and rotate the secret. The secret is made here, sealed at rest and answered in clear once, by
 * the create (or the rotation that replaces it); every read masks it. A rotated secret keeps
 * signing beside the new one for a day, so receivers can switch without losing a delivery. The
 * URL's destination passes the outbound policy when it is saved (and the dispatcher's guarded
 * connection at every send). Who may see what is endpoint-access.ts; the bodies'
 * rules endpoint-input.ts. Sending deliveries is the dispatcher's, not this.
 */
import type { Principal } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import { outboundRefusal, type OutboundPolicy } from "../security/outbound-policy.ts";
import { open, seal, type KeyRing } from "../security/secret-box.ts";
import { newId } from "../store/ids.ts";
import type {
  WebhookEndpointChanges,
  WebhookEndpointCursor,
  WebhookEndpointRow,
} from "../store/repos/webhook-endpoints-repo.ts";
import type { Store } from "../store/store.ts";
import { keysetPage, type KeysetPage } from "../util/keyset-page.ts";
import { assertMayLimitTo, assertSitesOfWorkspace, isVisibleTo } from "./endpoint-access.ts";
import { checkedCreate, checkedPatch } from "./endpoint-input.ts";
import { createdEndpointView, endpointView, type WebhookEndpointView } from "./endpoint-view.ts";
import { newWebhookSecret } from "./webhook-signatures.ts";

/** The most endpoints a workspace may have. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;
/** How long a rotated secret still signs beside the new one. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;
/** The `disabled_reason` of an endpoint disabled with `PATCH … {enabled: false}`. */
export const DISABLED_BY_API = "disabled by the API";

export type { WebhookEndpointCursor, WebhookEndpointView };

export interface WebhookEndpointServiceParts {
  store: Store;
  ring: KeyRing;
  /** The service's outbound policy: where an endpoint's URL may lead. */
  outbound: OutboundPolicy;
  /** SITEVOICE_ALLOW_PRIVATE_NETWORKS: plain http:// to localhost is allowed only with it. */
  allowPrivateNetworks: boolean;
  now?: () => number;
}

export class WebhookEndpointService {
  private readonly store: Store;
  private readonly now: () => number;

  constructor(private readonly parts: WebhookEndpointServiceParts) {
    this.store = parts.store;
    this.now = parts.now ?? Date.now;
  }

  /** The endpoints the principal may see, newest first, keyset-paged. */
  async list(
    principal: Principal,
    query: { limit: number; before?: WebhookEndpointCursor },
  ): Promise<KeysetPage<WebhookEndpointView, WebhookEndpointCursor>> {
    // A key limited to some sites sees some endpoints only: pages are read until one more than
    // `limit` visible ones are found (a workspace has at most 20, so this stays short).
    const visible: WebhookEndpointRow[] = [];
    let before = query.before;
    for (;;) {
      const rows = await this.store.webhookEndpoints.page(principal.workspaceId, {
        limit: query.limit + 1,
        before,
      });
      visible.push(...rows.filter((row) => isVisibleTo(principal, row)));
      const last = rows.at(-1);
      if (visible.length > query.limit || rows.length <= query.limit || last === undefined) break;
      before = { created_at: last.created_at, id: last.id };
    }
    return keysetPage(
      visible,
      query.limit,
      (row) => this.view(row),
      (last) => ({ created_at: last.created_at, id: last.id }),
    );
  }

  async get(principal: Principal, id: string): Promise<WebhookEndpointView> {
    return this.view(await this.visible(principal, id));
  }

  /** A new endpoint, enabled, with a new secret: answered in clear this once. */
  async create(principal: Principal, body: unknown): Promise<WebhookEndpointView> {
    const input = checkedCreate(body, this.parts);
    const siteIds = input.site_ids ?? null;
    assertMayLimitTo(principal, siteIds);
    await assertSitesOfWorkspace(this.store, principal, siteIds);
    await this.assertDestination(input.url);
    const secret = newWebhookSecret();
    const row = newEndpointRow({
      workspaceId: principal.workspaceId,
      url: input.url,
      description: input.description ?? null,
      events: input.events,
      siteIds,
      sealedSecret: seal(this.parts.ring, secret),
      at: this.now(),
    });
    await this.store.transaction(async (tx) => {
      // Two creates at once cannot both pass the count (SQLite serializes writers already).
      await tx.workspaces.lock(principal.workspaceId, tx.client);
      const count = await tx.webhookEndpoints.countOfWorkspace(principal.workspaceId);
      if (count >= MAX_ENDPOINTS_PER_WORKSPACE) throw endpointLimit();
      await tx.webhookEndpoints.insert(row);
    });
    return createdEndpointView(row, secret);
  }

  /**
   * Changes the fields given. `enabled: true` on a disabled endpoint re-enables it with a clean
   * failure state; `enabled: false` disables it (an endpoint already disabled keeps when and why
   * it was). A new `url` keeps the secret.
   */
  async patch(principal: Principal, id: string, body: unknown): Promise<WebhookEndpointView> {
    const input = checkedPatch(body, this.parts);
    const row = await this.visible(principal, id);
    const at = this.now();
    const changes: WebhookEndpointChanges = { updated_at: at };
    if (input.url !== undefined) {
      await this.assertDestination(input.url);
      changes.url = input.url;
    }
    if (input.events !== undefined) changes.events = JSON.stringify(input.events);
    if (input.description !== undefined) changes.description = input.description;
    if (input.site_ids !== undefined) {
      assertMayLimitTo(principal, input.site_ids);
      await assertSitesOfWorkspace(this.store, principal, input.site_ids);
      changes.site_ids = input.site_ids === null ? null : JSON.stringify(input.site_ids);
    }
    if (input.enabled === true && !row.enabled) {
      Object.assign(changes, {
        enabled: true,
        consecutive_failures: 0,
        failing_since: null,
        disabled_at: null,
        disabled_reason: null,
        paused_until: null,
      });
    } else if (input.enabled === false && row.enabled) {
      Object.assign(changes, { enabled: false, disabled_at: at, disabled_reason: DISABLED_BY_API });
    }
    if (!(await this.store.webhookEndpoints.update(id, changes))) throw notFound(id);
    // Read again: the dispatcher may have written its state meanwhile.
    return this.get(principal, id);
  }

  /** Deletes the endpoint, with its deliveries and their attempts. */
  async delete(principal: Principal, id: string): Promise<void> {
    await this.visible(principal, id);
    if (!(await this.store.webhookEndpoints.delete(id))) throw notFound(id);
  }

  /**
   * A new secret, answered in clear this once. The one it replaces keeps signing beside it for
   * PREVIOUS_SECRET_TTL_MS; a secret replaced earlier stops at once.
   */
  async rotateSecret(principal: Principal, id: string): Promise<{ secret: string }> {
    await this.visible(principal, id);
    const secret = newWebhookSecret();
    const at = this.now();
    const sealed = seal(this.parts.ring, secret);
    const rotated = await this.store.webhookEndpoints.rotateSecret(
      id,
      sealed,
      at + PREVIOUS_SECRET_TTL_MS,
      at,
    );
    if (!rotated) throw notFound(id);
    return { secret };
  }

  /** The endpoint, when the principal may see it; 404 otherwise, whoever's it is. */
  private async visible(principal: Principal, id: string): Promise<WebhookEndpointRow> {
    const row = await this.store.webhookEndpoints.get(id);
    if (row === undefined || !isVisibleTo(principal, row)) throw notFound(id);
    return row;
  }

  private view(row: WebhookEndpointRow): WebhookEndpointView {
    return endpointView(row, open(this.parts.ring, row.secret));
  }

  /** 422 when the outbound policy refuses where `url` leads (checked when it is saved). */
  private async assertDestination(url: string): Promise<void> {
    try {
      await this.parts.outbound.checkUrlDestination(new URL(url));
    } catch (error) {
      const refusal = outboundRefusal(error);
      if (refusal === undefined) throw error;
      throw errors.validationFailed(`url is not allowed: ${refusal.message}`, {
        field: "url",
        reason: refusal.kind === "metadata" ? "metadata_address" : "private_address",
      });
    }
  }
}

const notFound = (id: string) => errors.notFound("Webhook endpoint", id);

const endpointLimit = () =>
  errors.validationFailed(
    `A workspace may have at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; ` +
      "delete one (or add its events to another) first",
    { reason: "endpoint_limit", limit: MAX_ENDPOINTS_PER_WORKSPACE },
  );

/** The row of a new endpoint: enabled, with no failures, its one secret given sealed. */
export function newEndpointRow(fields: {
  workspaceId: string;
  url: string;
  description: string | null;
  events: readonly string[];
  siteIds: readonly string[] | null;
  sealedSecret: string;
  at: number;
}): WebhookEndpointRow {
  return {
    id: newId("wh"),
    workspace_id: fields.workspaceId,
    url: fields.url,
    description: fields.description,
    events: JSON.stringify(fields.events),
    site_ids: fields.siteIds === null ? null : JSON.stringify(fields.siteIds),
    enabled: true,
    secret: fields.sealedSecret,
    previous_secret: null,
    previous_secret_until: null,
    consecutive_failures: 0,
    failing_since: null,
    disabled_at: null,
    disabled_reason: null,
    paused_until: null,
    created_at: fields.at,
    updated_at: fields.at,
  };
}
