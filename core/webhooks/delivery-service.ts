/**
 * What the API offers on deliveries: a synthetic `webhook.test` event sent to one endpoint, an
 * endpoint's delivery log (each delivery with every attempt), and a redelivery of an event (a new
 * delivery with the same event id, so a receiver that dedupes sees it as the same event).
 * Endpoints are found by the caller's workspace and sites, as the endpoints API finds them
 * (endpoint-access.ts).
 */
import type { Principal } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type {
  AttemptRow,
  DeliveryCursor,
  DeliveryRow,
  DeliveryStatus,
} from "../store/repos/webhook-deliveries-repo.ts";
import type { WebhookEndpointRow } from "../store/repos/webhook-endpoints-repo.ts";
import type { Store } from "../store/store.ts";
import { keysetPage, type KeysetPage } from "../util/keyset-page.ts";
import { isVisibleTo } from "./endpoint-access.ts";
import { TEST_EVENT_TYPE } from "./event-types.ts";
import { newDelivery } from "./outbox.ts";

export interface AttemptView {
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  response_body: string | null;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  site_id: string | null;
  status: DeliveryStatus;
  created_at: string;
  next_attempt_at: string | null;
  finished_at: string | null;
  redelivery_of: string | null;
  attempt_count: number;
  attempts: AttemptView[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function deliveryView(row: DeliveryRow, attempts: readonly AttemptRow[]): DeliveryView {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    site_id: row.site_key === "" ? null : row.site_key,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    next_attempt_at: row.status === "pending" ? iso(row.next_attempt_at) : null,
    finished_at: iso(row.finished_at),
    redelivery_of: row.redelivery_of,
    attempt_count: row.attempts,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: new Date(a.attempted_at).toISOString(),
      status_code: a.status_code,
      error: a.error,
      latency_ms: a.latency_ms,
      response_body: a.response_body,
    })),
  };
}

export class WebhookDeliveryService {
  constructor(
    private readonly parts: {
      store: Store;
      events: EventBus;
      /** Called once a new delivery is stored, so it goes out without waiting for a poll. */
      wake: () => void;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return (this.parts.now ?? Date.now)();
  }

  /** The endpoint `id` as `principal` may see it, else 404. */
  async endpoint(principal: Principal, id: string): Promise<WebhookEndpointRow> {
    const endpoint = await this.parts.store.webhookEndpoints.get(id);
    if (endpoint === undefined || !isVisibleTo(principal, endpoint)) {
      throw errors.notFound("Webhook", id);
    }
    return endpoint;
  }

  /** Records a `webhook.test` event with one delivery, to this endpoint only. */
  async test(principal: Principal, id: string): Promise<{ delivery_id: string; event_id: string }> {
    const endpoint = await this.endpoint(principal, id);
    if (!endpoint.enabled) throw disabled(endpoint.id);
    const delivery = await this.parts.events.transaction(async (tx, record) => {
      const event = await record({
        type: TEST_EVENT_TYPE,
        workspace_id: endpoint.workspace_id,
        data: {
          message: "A test event from Sitevoice: your endpoint is reachable and verifies it.",
          webhook_id: endpoint.id,
        },
      });
      const row = newDelivery(
        endpoint.id,
        { ...event, site_id: null },
        Date.parse(event.created_at),
      );
      await tx.webhookDeliveries.insert([row]);
      return row;
    });
    this.parts.wake();
    return { delivery_id: delivery.id, event_id: delivery.event_id };
  }

  /** A page of the endpoint's deliveries, newest first, each with its attempts. */
  async list(
    principal: Principal,
    id: string,
    options: { limit: number; before?: DeliveryCursor; status?: DeliveryStatus },
  ): Promise<KeysetPage<DeliveryView, DeliveryCursor>> {
    const endpoint = await this.endpoint(principal, id);
    const deliveries = this.parts.store.webhookDeliveries;
    const rows = await deliveries.page(endpoint.id, { ...options, limit: options.limit + 1 });
    const attempts = await deliveries.attemptsOf(rows.slice(0, options.limit).map((r) => r.id));
    const byDelivery = new Map<string, AttemptRow[]>();
    for (const attempt of attempts) {
      byDelivery.set(attempt.delivery_id, [
        ...(byDelivery.get(attempt.delivery_id) ?? []),
        attempt,
      ]);
    }
    return keysetPage(
      rows,
      options.limit,
      (row) => deliveryView(row, byDelivery.get(row.id) ?? []),
      (last) => ({ created_at: last.created_at, id: last.id }),
    );
  }

  /** A new delivery of the event of `deliveryId`, due now. */
  async redeliver(
    principal: Principal,
    id: string,
    deliveryId: string,
  ): Promise<{ delivery_id: string }> {
    const endpoint = await this.endpoint(principal, id);
    const store = this.parts.store;
    const original = await store.webhookDeliveries.get(deliveryId);
    if (original === undefined || original.endpoint_id !== endpoint.id) {
      throw errors.notFound("Delivery", deliveryId);
    }
    if (!endpoint.enabled) throw disabled(endpoint.id);
    if ((await store.events.serviceEvent(original.event_id)) === undefined) {
      throw errors.validationFailed("The event of this delivery is no longer kept", {
        field: "delivery_id",
      });
    }
    const row = newDelivery(
      endpoint.id,
      { id: original.event_id, type: original.event_type, site_id: original.site_key || null },
      this.now(),
      original.id,
    );
    await store.webhookDeliveries.insert([row]);
    this.parts.wake();
    return { delivery_id: row.id };
  }
}

const disabled = (id: string) =>
  errors.conflict(`Webhook ${id} is disabled; re-enable it with PATCH {"enabled": true} first`, {
    field: "enabled",
  });
