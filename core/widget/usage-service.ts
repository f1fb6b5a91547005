/**
 * The widget's usage events (with the UsageEvent rules): `session_start` and `session_end` count
 * once per session whatever the client sends; `session_end` gets its duration from the session's
 * start and ends the session, with `conversation.ended` recorded in the same transaction; any
 * other event is recorded once per key (see replay-key.ts), a copy answering the first.
 */
import { conversationEnded } from "./conversation-ended.ts";
import type { EventBus, UsageEvent } from "../events/event-bus.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { UsageEventWrite } from "../types/generated/usage-event-write.ts";
import { batchEventKey, eventKey } from "./replay-key.ts";
import type { SessionService } from "./session-service.ts";
import { SEARCH_SITE } from "./voice-tools.ts";

export class UsageService {
  private readonly now: () => number;

  constructor(
    private readonly parts: { events: EventBus; sessions: SessionService; now?: () => number },
  ) {
    this.now = parts.now ?? Date.now;
  }

  /** POST /analytics/event, its body checked and its signature verified. */
  recordEvent(session: SessionRow, body: UsageEventWrite, signedBody: Buffer): Promise<UsageEvent> {
    return this.record(session, body, (clientId) => eventKey(session.id, signedBody, clientId));
  }

  /**
   * POST /analytics/event in its batch form (`{events: [...]}`), checked and verified: each event
   * recorded as recordEvent would record it alone, under its own key (batchEventKey), answered in
   * the order given. Every write is started before any is awaited, so they join the event bus's
   * batches together instead of waiting for one flush each.
   *
   * A write that fails fails the whole call (the caller answers 503), though others of the batch
   * may be stored by then. Each event's key depends only on the signed bytes and its place in them
   * (or its client id), so a retry of the same bytes stores only what is missing and answers the
   * ids already stored: each event of the batch is stored once.
   */
  recordEvents(
    session: SessionRow,
    events: readonly UsageEventWrite[],
    signedBody: Buffer,
  ): Promise<UsageEvent[]> {
    return Promise.all(
      events.map((event, index) =>
        this.record(session, event, (clientId) =>
          batchEventKey(session.id, signedBody, index, clientId),
        ),
      ),
    );
  }

  /** One usage event; `keyOf` gives its replay key from its client id (if it has one). */
  private async record(
    session: SessionRow,
    body: UsageEventWrite,
    keyOf: (clientId: string | undefined) => string,
  ): Promise<UsageEvent> {
    const metadata: Record<string, unknown> = { ...body.metadata };
    const clientId =
      typeof metadata.client_event_id === "string" ? metadata.client_event_id : undefined;
    delete metadata.client_event_id;
    const base = { site_id: session.site_id, session_id: session.id, metadata };
    switch (body.type) {
      case "session_start":
        return this.parts.events.recordUsage({
          ...base,
          type: "session_start",
          metadata: { ...metadata, session_id: session.id },
          client_event_id: `session_start:${session.id}`,
        });
      case "session_end":
        return this.endSession(session, "visitor", metadata);
      default:
        return this.parts.events.recordUsage({
          ...base,
          type: body.type,
          function_name: body.function_name,
          client_event_id: keyOf(clientId),
        });
    }
  }

  /** A widget search: a `db_query` event, with what was asked, not what was found. */
  recordQuery(session: SessionRow, body: unknown): Promise<UsageEvent> {
    const params = body as { collection?: unknown; filters?: unknown[] };
    return this.parts.events.recordUsage({
      site_id: session.site_id,
      session_id: session.id,
      type: "db_query",
      metadata: {
        session_id: session.id,
        collection: params.collection,
        filters: Array.isArray(params.filters) ? params.filters.length : 0,
      },
    });
  }

  /**
   * The agent's `search_site` (POST /knowledge): a `function_call` event, with how many passages
   * it found, never the question or the passages.
   */
  recordSiteSearch(session: SessionRow, returned: number): Promise<UsageEvent> {
    return this.parts.events.recordUsage({
      site_id: session.site_id,
      session_id: session.id,
      type: "function_call",
      function_name: SEARCH_SITE,
      metadata: { session_id: session.id, returned },
    });
  }

  /**
   * Ends a session once: the end and its `conversation.ended` in one transaction, then its
   * `session_end` usage event (once per session, however often this is called). A session whose
   * call the service controlled gets its `conversation.ended` with its cost, about a minute later
   * (core/voice/session-costs.ts), so no second event is ever sent.
   */
  async endSession(
    session: SessionRow,
    reason: string,
    metadata: Record<string, unknown> = {},
    at = this.now(),
  ): Promise<UsageEvent> {
    const durationSeconds = Math.max(0, Math.round((at - session.created_at) / 10) / 100);
    // The session's calls and queries acknowledged so far are counted, so they must be stored.
    await this.parts.events.flush();
    await this.parts.events.transaction(async (tx, record) => {
      if (!(await tx.sessions.end(session.id, this.now(), reason))) return;
      if (await tx.voiceCalls.controlledOf(session.id)) return;
      await tx.sessions.markEndedEvent(session.id, this.now());
      const counts = await tx.events.countSessionUsage(session.id);
      await record(conversationEnded(session, { durationSeconds, counts, reason, at }));
    });
    this.parts.sessions.forget(session.id);
    return this.parts.events.recordUsage({
      site_id: session.site_id,
      session_id: session.id,
      type: "session_end",
      duration_seconds: durationSeconds,
      metadata: { ...metadata, session_id: session.id, end_reason: reason },
      client_event_id: `session_end:${session.id}`,
    });
  }
}
