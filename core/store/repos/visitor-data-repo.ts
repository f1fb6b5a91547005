/**
 * One visitor's data on one site, across the tables that hold it (docs/visitor-data.md's table of visitor
 * data): read for an export, rewritten by an erasure. A visitor is their fingerprint on a site;
 * their sessions are the site's sessions with that fingerprint, and what refers to those sessions
 * (usage events, leads, transcripts, service events) is theirs.
 */
import type { Knex } from "knex";
import type { LeadRow, TranscriptRow } from "./leads-repo.ts";
import type { ServiceEventRow } from "./events-repo.ts";
import type { SessionRow } from "./sessions-repo.ts";
import type { UsageEventRow } from "./usage-event-row.ts";

/** Ids per `IN (…)` or `OR` list: well under every database's parameter limit. */
const CHUNK = 200;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The service event types whose data names a visitor (a lead, a session, a fingerprint). */
export const VISITOR_EVENT_TYPES = ["lead.captured", "lead.updated", "conversation.ended"];

/** What a session keeps once its visitor is erased, in place of the fingerprint. */
export const ERASED_FINGERPRINT = "erased";

export class VisitorDataRepo {
  constructor(private readonly knex: Knex) {}

  async sessions(siteId: string, fingerprint: string): Promise<SessionRow[]> {
    return this.knex<SessionRow>("widget_sessions")
      .where({ site_id: siteId, user_fingerprint: fingerprint })
      .orderBy([{ column: "created_at" }, { column: "id" }]);
  }

  /** The usage events of `sessionIds` (of `siteId`), oldest first. */
  async usage(siteId: string, sessionIds: readonly string[]): Promise<UsageEventRow[]> {
    const rows: UsageEventRow[] = [];
    for (const ids of chunks(sessionIds)) {
      rows.push(
        ...(await this.knex<UsageEventRow>("usage_events")
          .where({ site_id: siteId })
          .whereIn("session_id", ids)),
      );
    }
    return rows.sort((a, b) => Number(a.created_at) - Number(b.created_at) || cmp(a.id, b.id));
  }

  /** The transcripts of the fingerprint or of its sessions, oldest first. */
  async transcripts(
    siteId: string,
    fingerprint: string,
    sessionIds: readonly string[],
  ): Promise<TranscriptRow[]> {
    return this.ofVisitor<TranscriptRow>("transcripts", siteId, fingerprint, sessionIds);
  }

  /** The leads captured with the fingerprint or in its sessions, not yet erased, oldest first. */
  async leads(
    siteId: string,
    fingerprint: string,
    sessionIds: readonly string[],
  ): Promise<LeadRow[]> {
    const rows = await this.ofVisitor<LeadRow & { erased_at: number | null }>(
      "leads",
      siteId,
      fingerprint,
      sessionIds,
    );
    return rows.filter((row) => row.erased_at === null);
  }

  /**
   * The site's service events of VISITOR_EVENT_TYPES whose data holds one of `needles` (the
   * fingerprint, lead ids, session ids), oldest first.
   */
  async serviceEvents(siteId: string, needles: readonly string[]): Promise<ServiceEventRow[]> {
    const found = new Map<string, ServiceEventRow>();
    for (const some of chunks(needles, 40)) {
      const rows = await this.knex<ServiceEventRow>("service_events")
        .where({ site_id: siteId })
        .whereIn("type", VISITOR_EVENT_TYPES)
        .where((w) => {
          for (const needle of some) w.orWhere("data", "like", `%${needle}%`);
        });
      // LIKE reads `_` as any character: the row is kept only if it holds the needle itself.
      for (const row of rows) {
        if (some.some((needle) => row.data.includes(needle))) found.set(row.id, row);
      }
    }
    return [...found.values()].sort(
      (a, b) => Number(a.created_at) - Number(b.created_at) || cmp(a.id, b.id),
    );
  }

  /** The recorded answers to the webhook deliveries of `eventIds` that kept a body. */
  async deliveryAnswers(
    eventIds: readonly string[],
  ): Promise<{ id: string; response_body: string }[]> {
    const rows: { id: string; response_body: string }[] = [];
    for (const ids of chunks(eventIds)) {
      rows.push(
        ...(await this.knex("webhook_attempts")
          .join("webhook_deliveries", "webhook_deliveries.id", "webhook_attempts.delivery_id")
          .whereIn("webhook_deliveries.event_id", ids)
          .whereNotNull("webhook_attempts.response_body")
          .select<{ id: string; response_body: string }[]>(
            "webhook_attempts.id",
            "webhook_attempts.response_body",
          )),
      );
    }
    return rows;
  }

  async deleteTranscripts(ids: readonly string[]): Promise<number> {
    let deleted = 0;
    for (const some of chunks(ids)) {
      deleted += await this.knex("transcripts").whereIn("id", some).delete();
    }
    return deleted;
  }

  /** Empties a lead's personal fields; its status and times stay (the business's counts). */
  async eraseLead(id: string, pageUrl: string | null, at: number): Promise<void> {
    await this.knex("leads").where({ id }).update({
      user_fingerprint: null,
      name: null,
      email: null,
      phone: null,
      phone_digits: null,
      message: null,
      fields: null,
      reason: null,
      turns: null,
      notes: null,
      page_url: pageUrl,
      erased_at: at,
    });
  }

  async redactSession(id: string, pageUrl: string | null): Promise<void> {
    await this.knex("widget_sessions")
      .where({ id })
      .update({ user_fingerprint: ERASED_FINGERPRINT, ip_hash: null, page_url: pageUrl });
  }

  async setUsageMetadata(id: string, metadata: string): Promise<void> {
    await this.knex("usage_events").where({ id }).update({ metadata });
  }

  async setServiceEventData(id: string, data: string): Promise<void> {
    await this.knex("service_events").where({ id }).update({ data });
  }

  async setDeliveryAnswer(id: string, body: string): Promise<void> {
    await this.knex("webhook_attempts").where({ id }).update({ response_body: body });
  }

  private async ofVisitor<R extends { id: string; created_at: number }>(
    table: string,
    siteId: string,
    fingerprint: string,
    sessionIds: readonly string[],
  ): Promise<R[]> {
    const found = new Map<string, R>();
    const add = (rows: R[]) => rows.forEach((row) => found.set(row.id, row));
    add(
      (await this.knex(table)
        .where("site_id", siteId)
        .where("user_fingerprint", fingerprint)) as R[],
    );
    for (const ids of chunks(sessionIds)) {
      add((await this.knex(table).where("site_id", siteId).whereIn("session_id", ids)) as R[]);
    }
    return [...found.values()].sort(
      (a, b) => Number(a.created_at) - Number(b.created_at) || cmp(a.id, b.id),
    );
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
