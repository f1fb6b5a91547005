/**
 * The erasure of one visitor on one site, in one transaction (written whole or not at all, and a
 * second run finds nothing): their transcripts deleted; their leads' personal fields emptied
 * (the lead, its status and times stay, so the business's counts hold); their sessions without
 * fingerprint, hashed IP or the page URL's query; personal data redacted in the metadata of their
 * usage events (kept, so the rollups keep their counts), in the service events about them (what
 * webhooks deliver, later deliveries included) and in the answers their webhook receivers gave;
 * and the export documents made of them deleted. The result counts what changed, never the data.
 */
import type { Store } from "../store/store.ts";
import { sealedFieldsOf } from "../events/event-shapes.ts";
import { Redactor } from "./redact.ts";

export interface ErasureCounts {
  transcripts_deleted: number;
  leads_erased: number;
  sessions_redacted: number;
  usage_events_redacted: number;
  service_events_redacted: number;
  webhook_answers_redacted: number;
  exports_deleted: number;
}

/** Lead fields emptied in the service events that carry a lead. */
const LEAD_PERSONAL = ["user_fingerprint", "name", "email", "phone", "message", "reason", "notes"];

export async function eraseVisitor(
  tx: Store,
  target: { site_id: string; subject_hash: string },
  fingerprint: string,
  now: number,
): Promise<ErasureCounts> {
  const data = tx.visitorData;
  const sessions = await data.sessions(target.site_id, fingerprint);
  const sessionIds = sessions.map((s) => s.id);
  const leads = await data.leads(target.site_id, fingerprint, sessionIds);
  const redactor = new Redactor([
    fingerprint,
    ...leads.flatMap((lead) => [lead.email, lead.phone, lead.name].filter(isText)),
  ]);

  const transcripts = await data.transcripts(target.site_id, fingerprint, sessionIds);
  const transcriptsDeleted = await data.deleteTranscripts(transcripts.map((t) => t.id));

  for (const lead of leads) await data.eraseLead(lead.id, redactor.url(lead.page_url), now);

  let usageRedacted = 0;
  for (const event of await data.usage(target.site_id, sessionIds)) {
    if (event.metadata === null) continue;
    const redacted = JSON.stringify(redactor.json(JSON.parse(event.metadata)));
    if (redacted === event.metadata) continue;
    await data.setUsageMetadata(event.id, redacted);
    usageRedacted++;
  }

  for (const session of sessions)
    await data.redactSession(session.id, redactor.url(session.page_url));

  const needles = [fingerprint, ...leads.map((l) => l.id), ...sessionIds];
  const events = await data.serviceEvents(target.site_id, needles);
  let eventsRedacted = 0;
  for (const event of events) {
    const redacted = JSON.stringify(redactEvent(event.type, JSON.parse(event.data), redactor));
    if (redacted === event.data) continue;
    await data.setServiceEventData(event.id, redacted);
    eventsRedacted++;
  }

  let answersRedacted = 0;
  for (const answer of await data.deliveryAnswers(events.map((e) => e.id))) {
    const redacted = redactor.text(answer.response_body);
    if (redacted === answer.response_body) continue;
    await data.setDeliveryAnswer(answer.id, redacted);
    answersRedacted++;
  }

  const exportsDeleted = await tx.userData.deleteExportsOf(target.subject_hash);
  return {
    transcripts_deleted: transcriptsDeleted,
    leads_erased: leads.length,
    sessions_redacted: sessions.length,
    usage_events_redacted: usageRedacted,
    service_events_redacted: eventsRedacted,
    webhook_answers_redacted: answersRedacted,
    exports_deleted: exportsDeleted,
  };
}

const isText = (value: string | null): value is string => value !== null && value !== "";

/**
 * A service event's data about the visitor, redacted: a lead's personal fields emptied, the
 * fingerprint gone, every other string redacted. Sealed fields (a lead's update token) are kept
 * as sealed: they are no personal data, and a delivery still to come needs them.
 */
function redactEvent(
  type: string,
  data: Record<string, unknown>,
  redactor: Redactor,
): Record<string, unknown> {
  const sealed = sealedFieldsOf(type);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (sealed.includes(key)) out[key] = value;
    else if (key === "user_fingerprint") out[key] = null;
    // A callback's reason, beside its lead: the visitor's words, whatever they look like.
    else if (type === "lead.captured" && key === "reason") out[key] = null;
    else if (key === "lead" && typeof value === "object" && value !== null) {
      out[key] = eraseLeadView(value as Record<string, unknown>, redactor);
    } else out[key] = redactor.json(value);
  }
  return out;
}

function eraseLeadView(lead: Record<string, unknown>, redactor: Redactor): Record<string, unknown> {
  const out = redactor.json(lead) as Record<string, unknown>;
  for (const field of LEAD_PERSONAL) if (field in out) out[field] = null;
  if ("fields" in out) out.fields = {};
  if ("turns" in out) out.turns = [];
  if (typeof lead.page_url === "string") out.page_url = redactor.url(lead.page_url);
  return out;
}
