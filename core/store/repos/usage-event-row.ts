/** A usage event as the store keeps it, and its columns. */
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

/** A usage event as `storeUsage` stored it; `repeated` when its client id was stored already. */
export interface StoredUsage {
  row: UsageEventRow;
  repeated: boolean;
}

/** The columns of a usage event row, in the order the batch insert names them. */
export const USAGE_COLUMNS = [
  "id",
  "site_id",
  "session_id",
  "type",
  "function_name",
  "duration_seconds",
  "cost_cents",
  "metadata",
  "client_event_id",
  "created_at",
] as const satisfies readonly (keyof UsageEventRow)[];
