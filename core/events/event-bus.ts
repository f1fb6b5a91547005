/**
 * The event bus: the one place usage events (what the widget reports) and service events
 * (`lead.captured`, `conversation.ended`, …) are recorded and handed to subscribers (event sinks,
 * and the live stream and webhooks later).
 *
 * Usage events are batched, a few milliseconds at most, into one insert; a write is acknowledged
 * (its promise resolves) only once its batch is stored, and `close` flushes what is pending, so
 * nothing acknowledged is ever lost. Service events are recorded in the transaction of the change
 * that causes them (`transaction`): a lead and its `lead.captured` exist together or not at all,
 * whatever crashes when, and subscribers hear of them once that transaction has committed.
 */
import type { Logger } from "pino";
import { errors } from "../errors.ts";
import { seal, type KeyRing } from "../security/secret-box.ts";
import {
  mapSealedFields,
  usageEvent,
  type ServiceEvent,
  type ServiceEventInput,
  type UsageEvent,
  type UsageEventInput,
} from "./event-shapes.ts";
import { newId } from "../store/ids.ts";
import type { ServiceEventRow, StoredUsage, UsageEventRow } from "../store/repos/events-repo.ts";
import type { Store } from "../store/store.ts";

export {
  mapSealedFields,
  openServiceEvent,
  SEALED_EVENT_TYPES,
  USAGE_EVENT_TYPES,
  usageEvent,
} from "./event-shapes.ts";
export type {
  ServiceEvent,
  ServiceEventInput,
  UsageEvent,
  UsageEventInput,
  UsageEventType,
} from "./event-shapes.ts";

export type BusEvent =
  { kind: "usage"; event: UsageEvent } | { kind: "service"; event: ServiceEvent };

interface Pending<R, T> {
  row: R;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** Records a service event in the transaction at hand; resolves with the event as recorded. */
export type RecordServiceEvent = (input: ServiceEventInput) => Promise<ServiceEvent>;

export interface EventBusOptions {
  logger: Logger;
  now?: () => number;
  /** Longest a write waits for others to join its batch. */
  flushMs?: number;
  /** A batch this full is written at once. */
  batchSize?: number;
  /**
   * Called in the transaction of each service event it records, after the event's row (the
   * webhook outbox writes the event's deliveries there).
   */
  onRecorded?: (tx: Store, row: ServiceEventRow) => Promise<unknown>;
}

export class EventBus {
  private usage: Pending<UsageEventRow, UsageEvent>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly listeners = new Set<(event: BusEvent) => void>();
  private readonly now: () => number;
  private readonly flushMs: number;
  private readonly batchSize: number;

  constructor(
    private readonly store: Store,
    private readonly ring: KeyRing,
    private readonly options: EventBusOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.flushMs = options.flushMs ?? 5;
    this.batchSize = options.batchSize ?? 250;
  }

  /** Stores a usage event; resolves once stored. A repeated client id resolves with the first. */
  recordUsage(input: UsageEventInput): Promise<UsageEvent> {
    const row: UsageEventRow = {
      id: newId("evt"),
      site_id: input.site_id,
      session_id: input.session_id ?? null,
      type: input.type,
      function_name: input.function_name ?? null,
      duration_seconds: input.duration_seconds ?? null,
      cost_cents: null,
      metadata: input.metadata === undefined ? null : JSON.stringify(input.metadata),
      client_event_id: input.client_event_id ?? null,
      created_at: this.now(),
    };
    return this.enqueue(row);
  }

  /**
   * Gives the stored `session_end` event `eventId` its cost, once the voice provider has confirmed
   * the session's usage (the API reference, "Usage event cost"), and adds the cost to the usage rollups, in
   * one transaction. Nothing is announced: the event was, when it was stored. `added` is false
   * when the event has its cost already: a repeated call, or one racing it, changes nothing.
   * Refused: a cost that is not a finite number of cents of at least 0 (invalid_request), an
   * unknown event id (not_found), an event of another type (validation_failed).
   */
  async addSessionCost(eventId: string, costCents: number): Promise<{ added: boolean }> {
    if (this.closed) throw shuttingDown();
    if (!Number.isFinite(costCents) || costCents < 0) {
      throw errors.invalidRequest("cost_cents must be a finite number of at least 0", {
        field: "cost_cents",
      });
    }
    const outcome = await this.store.events.addSessionCost(eventId, costCents);
    if (outcome === "not_found") throw errors.notFound("Usage event", eventId);
    if (outcome === "not_session_end") {
      throw errors.validationFailed(`Usage event '${eventId}' is not a session_end event`, {
        field: "event_id",
        id: eventId,
      });
    }
    return { added: outcome === "added" };
  }

  /**
   * Runs `work` in one store transaction with `record`, which stores service events (the sealed
   * fields of their type sealed) in that same transaction. Subscribers get each recorded event,
   * its data as given, once the transaction has committed; a transaction that fails records none.
   */
  async transaction<T>(work: (tx: Store, record: RecordServiceEvent) => Promise<T>): Promise<T> {
    if (this.closed) throw shuttingDown();
    const recorded: ServiceEvent[] = [];
    const result = await this.store.transaction((tx) =>
      work(tx, async (input) => {
        const { row, event } = this.serviceRow(input);
        await tx.events.insertService([row]);
        await this.options.onRecorded?.(tx, row);
        recorded.push(event);
        return event;
      }),
    );
    for (const event of recorded) this.announce({ kind: "service", event });
    return result;
  }

  /** The stored row of a service event (its sealed fields sealed) and the event subscribers get. */
  private serviceRow(input: ServiceEventInput): { row: ServiceEventRow; event: ServiceEvent } {
    const stored = mapSealedFields(input.type, input.data, (value) => seal(this.ring, value));
    const row: ServiceEventRow = {
      id: newId("evt"),
      type: input.type,
      workspace_id: input.workspace_id,
      site_id: input.site_id ?? null,
      data: JSON.stringify(stored),
      created_at: this.now(),
    };
    const event: ServiceEvent = {
      id: row.id,
      type: row.type,
      workspace_id: row.workspace_id,
      ...(row.site_id === null ? {} : { site_id: row.site_id }),
      data: { ...input.data },
      created_at: new Date(row.created_at).toISOString(),
    };
    return { row, event };
  }

  /** `listener` receives every event once it is stored; returns the unsubscribe function. */
  subscribe(listener: (event: BusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Writes everything pending; resolves when it is stored. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const usage = this.usage.splice(0);
    // Batches are written one after another, so a flush also waits for the one in flight.
    this.writing = this.writing.then(() => this.write(usage));
    return this.writing;
  }

  /** Refuses new writes and stores every pending one. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private enqueue(row: UsageEventRow): Promise<UsageEvent> {
    if (this.closed) return Promise.reject(shuttingDown());
    return new Promise<UsageEvent>((resolve, reject) => {
      this.usage.push({ row, resolve, reject });
      if (this.usage.length >= this.batchSize) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
    });
  }

  private async write(usage: Pending<UsageEventRow, UsageEvent>[]): Promise<void> {
    if (usage.length === 0) return;
    let stored: StoredUsage[];
    try {
      stored = await this.store.events.storeUsage(usage.map((p) => p.row));
    } catch (error) {
      this.options.logger.error({ err: error, events: usage.length }, "event write failed");
      const failure = errors.serviceUnavailable("Events could not be stored; retry", error);
      for (const pending of usage) pending.reject(failure);
      return;
    }
    usage.forEach((pending, i) => {
      const { row, repeated } = stored[i] as StoredUsage;
      const event = usageEvent(row);
      pending.resolve(event);
      // A retry answers with the first write's id and is not announced again.
      if (!repeated) this.announce({ kind: "usage", event });
    });
  }

  private announce(event: BusEvent) {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.logger.warn({ err: error }, "an event subscriber threw");
      }
    }
  }
}

const shuttingDown = () => errors.serviceUnavailable("The service is shutting down; retry");
