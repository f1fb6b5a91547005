/** Usage event rows as the store keeps them, for tests that write events straight to the store. */
import { newId } from "../../core/store/ids.ts";
import type { UsageEventRow } from "../../core/store/repos/events-repo.ts";

/** A `db_query` event of `siteId` now, with a new id and nothing else, but for `fields`. */
export function usageRow(siteId: string, fields: Partial<UsageEventRow> = {}): UsageEventRow {
  return {
    id: newId("evt"),
    site_id: siteId,
    session_id: null,
    type: "db_query",
    function_name: null,
    duration_seconds: null,
    cost_cents: null,
    metadata: null,
    client_event_id: null,
    created_at: Date.now(),
    ...fields,
  };
}
