/**
 * The export of one visitor on one site: one JSON document with their sessions, the transcripts,
 * usage events and leads of those sessions (or of their fingerprint), a description of each
 * section's fields, and when it was generated. docs/visitor-data.md, "Export format", shows it.
 */
import type { Store } from "../store/store.ts";

export const EXPORT_FORMAT = "sitevoice.user-data-export/1";

/** What each section's fields mean: part of every document, so it reads on its own. */
export const EXPORT_SCHEMA = {
  sessions: {
    session_id: "the widget session's id",
    started_at: "when the visitor opened the session (ISO 8601)",
    ended_at: "when it ended, or null while open",
    page_url: "the page the session started on",
    duration_seconds: "the conversation's length, or null while open",
    end_reason: "why it ended: visitor (the visitor hung up) or idle, or null while open",
  },
  transcripts: {
    id: "the transcript's id",
    session_id: "the session it records",
    page_url: "the page at the time",
    created_at: "when it was stored",
    expires_at: "when the site's retention deletes it",
    turns: "the conversation as stored: the visitor's and the assistant's turns",
  },
  usage_events: {
    id: "the event's id",
    session_id: "the session that reported it",
    type: "session_start, session_end, function_call, db_query or image_description",
    function_name: "the function called, for function_call events",
    duration_seconds: "for session_end: the conversation's length",
    metadata: "what the widget reported with the event",
    created_at: "when it was recorded",
  },
  leads: {
    id: "the lead's id",
    session_id: "the session it was captured in",
    name: "as given",
    email: "as given",
    phone: "as given",
    message: "as given",
    fields: "the other fields the site asked for",
    source: "widget (given to the assistant) or callback (a person asked for)",
    reason: "for a callback: why the visitor wanted a person",
    turns: "for a callback: the conversation so far, as the widget sent it",
    page_url: "the page it was captured on",
    status: "the business's status for it",
    notes: "the business's notes on it",
    created_at: "when it was captured",
    updated_at: "when it last changed",
  },
} as const;

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
const parsed = (json: string | null): unknown => (json === null ? null : JSON.parse(json));

export interface ExportDocument {
  format: string;
  request_id: string;
  site_id: string;
  user_fingerprint: string;
  generated_at: string;
  schema: typeof EXPORT_SCHEMA;
  sessions: Record<string, unknown>[];
  transcripts: Record<string, unknown>[];
  usage_events: Record<string, unknown>[];
  leads: Record<string, unknown>[];
}

export async function exportDocument(
  store: Store,
  request: { id: string; site_id: string },
  fingerprint: string,
  now: number,
): Promise<ExportDocument> {
  const data = store.visitorData;
  const sessions = await data.sessions(request.site_id, fingerprint);
  const sessionIds = sessions.map((s) => s.id);
  const usage = await data.usage(request.site_id, sessionIds);
  const ends = new Map(
    usage.filter((e) => e.type === "session_end").map((e) => [e.session_id, e.duration_seconds]),
  );
  const transcripts = await data.transcripts(request.site_id, fingerprint, sessionIds);
  const leads = await data.leads(request.site_id, fingerprint, sessionIds);
  return {
    format: EXPORT_FORMAT,
    request_id: request.id,
    site_id: request.site_id,
    user_fingerprint: fingerprint,
    generated_at: iso(now) as string,
    schema: EXPORT_SCHEMA,
    sessions: sessions.map((s) => ({
      session_id: s.id,
      started_at: iso(s.created_at),
      ended_at: iso(s.ended_at),
      page_url: s.page_url,
      duration_seconds:
        ends.get(s.id) ??
        (s.ended_at === null ? null : Math.round((s.ended_at - s.created_at) / 1000)),
      end_reason: s.end_reason,
    })),
    transcripts: transcripts.map((t) => ({
      id: t.id,
      session_id: t.session_id,
      page_url: t.page_url,
      created_at: iso(t.created_at),
      expires_at: iso(t.expires_at),
      turns: parsed(t.turns),
    })),
    usage_events: usage.map((e) => ({
      id: e.id,
      session_id: e.session_id,
      type: e.type,
      function_name: e.function_name,
      duration_seconds: e.duration_seconds,
      metadata: parsed(e.metadata),
      created_at: iso(e.created_at),
    })),
    leads: leads.map((l) => ({
      id: l.id,
      session_id: l.session_id,
      name: l.name,
      email: l.email,
      phone: l.phone,
      message: l.message,
      fields: parsed(l.fields) ?? {},
      source: l.source ?? "widget",
      reason: l.reason ?? null,
      turns: parsed(l.turns ?? null) ?? [],
      page_url: l.page_url,
      status: l.status,
      notes: l.notes,
      created_at: iso(l.created_at),
      updated_at: iso(l.updated_at),
    })),
  };
}
