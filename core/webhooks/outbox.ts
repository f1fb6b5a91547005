/**
 * The transactional outbox: when a service event is recorded, one delivery per endpoint that
 * subscribes to it (its type, and its site unless the endpoint takes every site) is written in the
 * same transaction, so an acknowledged event always has its deliveries, whatever crashes when.
 * Disabled endpoints get theirs too: re-enabling one sends what is still within its 24 hours.
 */
import { newId } from "../store/ids.ts";
import type { ServiceEventRow } from "../store/repos/events-repo.ts";
import type { DeliveryRow } from "../store/repos/webhook-deliveries-repo.ts";
import type { WebhookEndpointRow } from "../store/repos/webhook-endpoints-repo.ts";
import type { Store } from "../store/store.ts";
import { subscribesTo } from "./event-types.ts";

/** Whether `endpoint` receives `event`. */
export function endpointReceives(endpoint: WebhookEndpointRow, event: ServiceEventRow): boolean {
  if (!subscribesTo(JSON.parse(endpoint.events) as string[], event.type)) return false;
  if (endpoint.site_ids === null) return true;
  return (
    event.site_id !== null && (JSON.parse(endpoint.site_ids) as string[]).includes(event.site_id)
  );
}

/** A new pending delivery of `event` to `endpointId`, due at `now`. */
export function newDelivery(
  endpointId: string,
  event: Pick<ServiceEventRow, "id" | "type" | "site_id">,
  now: number,
  redeliveryOf: string | null = null,
): DeliveryRow {
  return {
    id: newId("dlv"),
    endpoint_id: endpointId,
    event_id: event.id,
    event_type: event.type,
    site_key: event.site_id ?? "",
    status: "pending",
    attempts: 0,
    created_at: now,
    first_attempt_at: null,
    last_attempt_at: null,
    next_attempt_at: now,
    finished_at: null,
    lease_owner: null,
    lease_until: null,
    redelivery_of: redeliveryOf,
  };
}

/** Writes the deliveries of `event` in the transaction `tx`; how many. */
export async function enqueueDeliveries(tx: Store, event: ServiceEventRow): Promise<number> {
  const endpoints = await tx.webhookEndpoints.ofWorkspace(event.workspace_id);
  const rows = endpoints
    .filter((endpoint) => endpointReceives(endpoint, event))
    .map((endpoint) => newDelivery(endpoint.id, event, event.created_at));
  await tx.webhookDeliveries.insert(rows);
  return rows.length;
}
