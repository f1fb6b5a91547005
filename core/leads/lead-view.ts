/** A lead as answered and announced: its stored row, without the update token's hash. */
import type { LeadRow } from "../store/repos/leads-repo.ts";
import type { CallbackTurn, LeadCapture } from "../types/generated/lead-create.ts";

type LeadSource = NonNullable<LeadCapture["source"]>;

export type LeadView = ReturnType<typeof leadView>;

export function leadView(row: LeadRow) {
  return {
    id: row.id,
    site_id: row.site_id,
    session_id: row.session_id,
    /** The visitor's fingerprint: what a data request names them by; null once erased. */
    user_fingerprint: row.user_fingerprint,
    name: row.name,
    email: row.email,
    phone: row.phone,
    message: row.message,
    page_url: row.page_url,
    fields: row.fields === null ? {} : (JSON.parse(row.fields) as Record<string, string>),
    /** `widget` or `callback`: what asked for the lead. */
    source: (row.source ?? "widget") as LeadSource,
    reason: row.reason ?? null,
    /** A callback's conversation so far; empty for other leads, and once erased. */
    turns:
      row.turns === null || row.turns === undefined
        ? []
        : (JSON.parse(row.turns) as CallbackTurn[]),
    status: row.status,
    notes: row.notes,
    created_at: new Date(Number(row.created_at)).toISOString(),
    updated_at: new Date(Number(row.updated_at)).toISOString(),
    erased_at:
      row.erased_at === null || row.erased_at === undefined
        ? null
        : new Date(Number(row.erased_at)).toISOString(),
  };
}
