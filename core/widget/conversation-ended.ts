/**
 * The `conversation.ended` service event of a widget session, as its webhooks deliver it: recorded
 * when the session ends, or, for a session whose call the service controlled, with the session's
 * cost about a minute later (core/voice/session-costs.ts). `cost_cents` is there only when known.
 */
import type { ServiceEventInput } from "../events/event-bus.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import { ERASED_FINGERPRINT } from "../store/repos/visitor-data-repo.ts";

export interface SessionEnd {
  durationSeconds: number;
  /** Its usage events stored, by type. */
  counts: Record<string, number>;
  reason: string;
  /** When it ended (ms since the epoch). */
  at: number;
  costCents?: number;
}

export function conversationEnded(session: SessionRow, end: SessionEnd): ServiceEventInput {
  return {
    type: "conversation.ended",
    workspace_id: session.workspace_id,
    site_id: session.site_id,
    data: {
      session_id: session.id,
      site_id: session.site_id,
      // null once an erasure took the visitor's fingerprint from the session.
      user_fingerprint:
        session.user_fingerprint === ERASED_FINGERPRINT ? null : session.user_fingerprint,
      duration_seconds: end.durationSeconds,
      function_calls: end.counts.function_call ?? 0,
      db_queries: end.counts.db_query ?? 0,
      ...(end.costCents === undefined ? {} : { cost_cents: end.costCents }),
      reason: end.reason,
      started_at: new Date(session.created_at).toISOString(),
      ended_at: new Date(end.at).toISOString(),
    },
  };
}
