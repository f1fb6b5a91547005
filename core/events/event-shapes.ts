/**
 * The events the bus carries, as the API reference shows them, and how stored rows become them: usage
 * events, service events, and the fields of each service event type that are sealed at rest.
 */
import { open, type KeyRing } from "../security/secret-box.ts";
import type { ServiceEventRow, UsageEventRow } from "../store/repos/events-repo.ts";

export const USAGE_EVENT_TYPES = [
  "session_start",
  "session_end",
  "function_call",
  "db_query",
  "image_description",
] as const;
export type UsageEventType = (typeof USAGE_EVENT_TYPES)[number];

/** A usage event as the API reference shows it. */
export interface UsageEvent {
  id: string;
  site_id: string;
  type: UsageEventType;
  duration_seconds?: number;
  function_name?: string;
  cost_cents?: number;
  metadata?: Record<string, unknown>;
  created_at: string;
}

export interface UsageEventInput {
  site_id: string;
  session_id?: string;
  type: UsageEventType;
  function_name?: string;
  duration_seconds?: number;
  metadata?: Record<string, unknown>;
  /** The client's id for the event: a retried write with the same one is stored once. */
  client_event_id?: string;
}

export interface ServiceEvent {
  id: string;
  type: string;
  workspace_id: string;
  site_id?: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** What `record` takes: a service event before it has an id and a time. */
export type ServiceEventInput = Omit<ServiceEvent, "id" | "created_at">;

/**
 * The top-level `data` fields of each service event type that hold a secret (a lead's update
 * token, which a webhook delivers later): sealed in the stored row, in clear for subscribers and
 * for `openServiceEvent`, re-sealed by `secrets rotate`. Known by the type, never guessed from a
 * value: every other field is stored as given, whatever it looks like.
 */
const SEALED_FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["lead.captured", ["update_token"]],
]);

/** The sealed `data` fields of a service event of `type`. */
export const sealedFieldsOf = (type: string): readonly string[] => SEALED_FIELDS.get(type) ?? [];

/** The service event types that have sealed fields. */
export const SEALED_EVENT_TYPES: readonly string[] = [...SEALED_FIELDS.keys()];

/** A copy of `data`, of an event of `type`, with `change` applied to each sealed field's value. */
export function mapSealedFields(
  type: string,
  data: Record<string, unknown>,
  change: (value: string) => string,
): Record<string, unknown> {
  const mapped = { ...data };
  for (const field of SEALED_FIELDS.get(type) ?? []) {
    const value = mapped[field];
    if (typeof value === "string") mapped[field] = change(value);
  }
  return mapped;
}

export function usageEvent(row: UsageEventRow): UsageEvent {
  return {
    id: row.id,
    site_id: row.site_id,
    type: row.type as UsageEventType,
    ...(row.duration_seconds === null ? {} : { duration_seconds: row.duration_seconds }),
    ...(row.function_name === null ? {} : { function_name: row.function_name }),
    ...(row.cost_cents === null ? {} : { cost_cents: row.cost_cents }),
    ...(row.metadata === null
      ? {}
      : { metadata: JSON.parse(row.metadata) as Record<string, unknown> }),
    created_at: new Date(Number(row.created_at)).toISOString(),
  };
}

/** A stored service event with its sealed data fields opened (for delivery, never for logs). */
export function openServiceEvent(row: ServiceEventRow, ring: KeyRing): ServiceEvent {
  const event = serviceEvent(row);
  return { ...event, data: mapSealedFields(row.type, event.data, (value) => open(ring, value)) };
}

function serviceEvent(row: ServiceEventRow): ServiceEvent {
  return {
    id: row.id,
    type: row.type,
    workspace_id: row.workspace_id,
    ...(row.site_id === null ? {} : { site_id: row.site_id }),
    data: JSON.parse(row.data) as Record<string, unknown>,
    created_at: new Date(row.created_at).toISOString(),
  };
}
