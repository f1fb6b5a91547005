/**
 * The cost of a session whose calls the service controlled, worked out about a minute after the
 * session ends (the API reference, "Usage event cost"), from the usage the provider confirmed for each
 * response (call_usage) and the prices of its model (prices.ts): written on the session's
 * `session_end` event and its rollup once (EventBus.addSessionCost), then `conversation.ended` is
 * recorded with it, once. A model without prices leaves the cost unknown: the event goes without
 * it, and the log says which model. Each step is idempotent, so a settlement cut short is finished
 * by the next run, and two instances never send anything twice.
 */
import type { Logger } from "pino";
import type { EventBus } from "../events/event-bus.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { Store } from "../store/store.ts";
import { conversationEnded } from "../widget/conversation-ended.ts";
import { costInCents, pricesOf, type VoicePrices } from "./prices.ts";

/** How long after a session ends its cost is settled: the provider's last usage comes first. */
export const SETTLE_AFTER_MS = 60_000;
const PAGE = 100;

export interface SessionCostParts {
  store: Store;
  events: EventBus;
  prices: VoicePrices;
  logger: Logger;
  now?: () => number;
}

export class SessionCosts {
  private readonly now: () => number;

  constructor(private readonly parts: SessionCostParts) {
    this.now = parts.now ?? Date.now;
  }

  /** Settles every controlled session that ended over SETTLE_AFTER_MS ago; how many. */
  async settleDue(): Promise<number> {
    let settled = 0;
    for (;;) {
      const due = await this.parts.store.sessions.costsDue(this.now() - SETTLE_AFTER_MS, PAGE);
      for (const session of due) {
        await this.settle(session);
        settled += 1;
      }
      if (due.length < PAGE) return settled;
    }
  }

  /** The session's cost in cents, on its session_end, then its conversation.ended; once. */
  async settle(session: SessionRow): Promise<number | undefined> {
    const { store, events, prices, logger } = this.parts;
    const usage = await store.callUsage.ofSession(session.id);
    const cost = costInCents(prices, usage);
    if (cost === undefined) {
      const unpriced = usage.filter((row) => pricesOf(prices, row.model) === undefined);
      logger.warn(
        { session_id: session.id, models: unpriced.map((row) => row.model) },
        "no prices for a voice model (SITEVOICE_VOICE_PRICES): the session's cost stays unknown",
      );
    }
    const end = await store.events.sessionEndOf(session.id);
    if (cost !== undefined && end !== undefined) await events.addSessionCost(end.id, cost);
    const endedAt = Number(session.ended_at ?? this.now());
    const durationSeconds =
      end?.duration_seconds ?? Math.round((endedAt - session.created_at) / 10) / 100;
    const metadata = end?.metadata === null || end === undefined ? {} : JSON.parse(end.metadata);
    await events.transaction(async (tx, record) => {
      if (!(await tx.sessions.markEndedEvent(session.id, this.now()))) return;
      const counts = await tx.events.countSessionUsage(session.id);
      await record(
        conversationEnded(session, {
          durationSeconds,
          counts,
          reason: String((metadata as { end_reason?: unknown }).end_reason ?? session.end_reason),
          at: session.created_at + Math.round(durationSeconds * 1000),
          ...(cost === undefined ? {} : { costCents: cost }),
        }),
      );
    });
    await store.sessions.settleCost(session.id, this.now());
    return cost;
  }
}
