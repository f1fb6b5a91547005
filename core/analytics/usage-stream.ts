/**
 * The live stream of a site's usage events (`GET /v1/:siteId/analytics/stream`), behind the SSE
 * route: who is subscribed to which site on this instance, and what reaches them.
 *
 * The store is the source of truth, the channel only a prompt. An event recorded here reaches
 * this instance's subscribers from the event bus at once; the ids of each batch are published on
 * the usage channel (core/pubsub: Redis, else PostgreSQL LISTEN/NOTIFY), and another instance with
 * subscribers to that site reads those events from the store and writes them out. A subscriber
 * that comes with the last id it saw (or whose instance's channel was cut, which may have lost
 * messages) first catches up from the store in id order, ids being time-ordered; what arrives
 * live meanwhile is held and written after, each event once.
 *
 * Memory stays bounded: a subscriber whose client does not keep up (its unsent output past the
 * sink's limit, or more held events than `maxHeld`) is cut off. Its client reconnects with
 * `Last-Event-ID` and loses nothing.
 */
import crypto from "node:crypto";
import type { Logger } from "pino";
import { usageEvent, type EventBus, type UsageEvent } from "../events/event-bus.ts";
import { MAYBE_MISSED, type Channel, type Topic } from "../pubsub/channel.ts";
import { idAt } from "../store/ids.ts";
import type { Store } from "../store/store.ts";
import { messageOf } from "../util/message-of.ts";
import { errors } from "../errors.ts";
import { parseStored, Subscriber, type Stored, type StreamSink } from "./stream-subscriber.ts";

export const USAGE_STORED: Topic = {
  redis: "sitevoice:usage-stored",
  postgres: "sitevoice_usage_stored",
  listenerName: "sitevoice-usage-stream",
  label: "usage stream channel",
  whileLost: "streams on other instances hear of this one's events once it is back",
};

export interface UsageStreamOptions {
  /** Live events held for a subscriber while it catches up; past this it is cut off. */
  maxHeld?: number;
  /** Events read from the store at a time when catching up. */
  pageSize?: number;
  /** How long ids wait to be published together. */
  publishDelayMs?: number;
}

/** The ids one message carries at most: PostgreSQL's NOTIFY payload is under 8,000 bytes. */
const IDS_PER_MESSAGE = 100;
/**
 * How far before the last message heard a catch-up after a channel cut starts: a message lost
 * with the cut may name events recorded that long before it was heard (batching, commit).
 */
const CATCH_UP_MARGIN_MS = 5_000;

export class UsageStream {
  private readonly bySite = new Map<string, Set<Subscriber>>();
  private readonly unpublished = new Map<string, string[]>();
  private publishTimer: NodeJS.Timeout | undefined;
  private readonly instance = crypto.randomUUID();
  private readonly maxHeld: number;
  private readonly pageSize: number;
  private readonly publishDelayMs: number;
  private closed = false;
  private ending = false;
  private hearing: Promise<void> = Promise.resolve();
  /** When this instance last heard a message on the channel. */
  private lastHeard = Date.now();
  /** Subscribers cut off for falling behind, since start. */
  cutOff = 0;

  constructor(
    private readonly parts: {
      store: Store;
      events: EventBus;
      /** The usage channel; `shared` when other instances hear it. */
      channel: Channel;
      shared: boolean;
      logger: Logger;
    },
    options: UsageStreamOptions = {},
  ) {
    this.maxHeld = options.maxHeld ?? 10_000;
    this.pageSize = options.pageSize ?? 500;
    this.publishDelayMs = options.publishDelayMs ?? 20;
    parts.events.subscribe((bused) => {
      if (bused.kind === "usage") this.recorded(bused.event);
    });
    // One message at a time, so events reach subscribers in the order they were announced.
    parts.channel.subscribe((message) => {
      this.hearing = this.hearing
        .then(() => this.heard(message))
        .catch((err: unknown) => parts.logger.error({ err }, "stream message not handled"));
    });
  }

  /**
   * Subscribes `sink` to `siteId`'s events: those after `lastEventId` first, from the store, then
   * each as it is recorded. Resolves with the unsubscribe function once it is live.
   */
  async subscribe(siteId: string, sink: StreamSink, lastEventId?: string): Promise<() => void> {
    if (this.ending) throw errors.serviceUnavailable("The service is shutting down; reconnect");
    const subscriber = new Subscriber(siteId, sink, lastEventId ?? idAt("evt", Date.now()));
    let subscribers = this.bySite.get(siteId);
    if (subscribers === undefined) this.bySite.set(siteId, (subscribers = new Set()));
    subscribers.add(subscriber);
    const unsubscribe = () => this.drop(subscriber);
    if (lastEventId !== undefined) await this.catchUp(subscriber, lastEventId);
    return unsubscribe;
  }

  /** False once the instance is stopping: new streams are refused. */
  get accepting(): boolean {
    return !this.ending;
  }

  /** How many subscribers this instance has, to one site or in all. */
  count(siteId?: string): number {
    if (siteId !== undefined) return this.bySite.get(siteId)?.size ?? 0;
    let total = 0;
    for (const subscribers of this.bySite.values()) total += subscribers.size;
    return total;
  }

  /**
   * Ends every stream and refuses new ones (503): the instance is stopping, and its clients
   * reconnect to another one. Events recorded meanwhile are still published.
   */
  endStreams() {
    this.ending = true;
    for (const subscribers of [...this.bySite.values()]) {
      for (const subscriber of [...subscribers]) {
        this.drop(subscriber);
        subscriber.sink.cut("the service is shutting down");
      }
    }
  }

  /** Ends every stream and publishes what is waiting; called after the event bus has flushed. */
  async close(): Promise<void> {
    this.endStreams();
    this.closed = true;
    await this.publish();
  }

  private drop(subscriber: Subscriber) {
    subscriber.closed = true;
    const subscribers = this.bySite.get(subscriber.siteId);
    subscribers?.delete(subscriber);
    if (subscribers?.size === 0) this.bySite.delete(subscriber.siteId);
  }

  /** An event recorded on this instance: to its subscribers now, to the others' soon. */
  private recorded(event: UsageEvent) {
    this.offer(event.site_id, [event]);
    if (!this.parts.shared || this.closed) return;
    const ids = this.unpublished.get(event.site_id);
    if (ids === undefined) this.unpublished.set(event.site_id, [event.id]);
    else ids.push(event.id);
    this.publishTimer ??= setTimeout(() => void this.publish(), this.publishDelayMs);
  }

  private async publish() {
    clearTimeout(this.publishTimer);
    this.publishTimer = undefined;
    const batches = [...this.unpublished];
    this.unpublished.clear();
    for (const [site, ids] of batches) {
      for (let at = 0; at < ids.length; at += IDS_PER_MESSAGE) {
        const message: Stored = {
          i: this.instance,
          s: site,
          e: ids.slice(at, at + IDS_PER_MESSAGE),
        };
        await this.parts.channel.publish(JSON.stringify(message));
      }
    }
  }

  /** A message on the usage channel. */
  private async heard(message: string) {
    const heardBefore = this.lastHeard;
    this.lastHeard = Date.now();
    if (message === MAYBE_MISSED) {
      // What was lost went unheard since the last message this instance heard.
      const from = idAt("evt", heardBefore - CATCH_UP_MARGIN_MS);
      for (const subscribers of this.bySite.values()) {
        for (const subscriber of subscribers) {
          void this.catchUp(subscriber, from > subscriber.since ? from : subscriber.since);
        }
      }
      return;
    }
    const stored = parseStored(message);
    if (stored === undefined || stored.i === this.instance || !this.bySite.has(stored.s)) return;
    try {
      const rows = await this.parts.store.events.usageByIds(stored.s, stored.e);
      this.offer(stored.s, rows.map(usageEvent));
    } catch (err) {
      // The events are stored; the site's streams read them from the store once it answers.
      this.parts.logger.warn(
        { err: messageOf(err), siteId: stored.s },
        "stream could not read events",
      );
      const from = idAt("evt", heardBefore - CATCH_UP_MARGIN_MS);
      for (const subscriber of this.bySite.get(stored.s) ?? []) {
        void this.catchUp(subscriber, from > subscriber.since ? from : subscriber.since);
      }
    }
  }

  /** Live events of `siteId` to each of its subscribers: written, or held while it catches up. */
  private offer(siteId: string, events: readonly UsageEvent[]) {
    for (const subscriber of this.bySite.get(siteId) ?? []) {
      for (const event of events) {
        if (subscriber.held === undefined) {
          if (!this.write(subscriber, event)) break;
        } else if (subscriber.held.length < this.maxHeld) {
          subscriber.held.push(event);
        } else {
          this.fellBehind(subscriber, "too many events arrived while it caught up");
          break;
        }
      }
    }
  }

  /** Writes `event` unless it already was; false once the subscriber is gone. */
  private write(subscriber: Subscriber, event: UsageEvent): boolean {
    if (subscriber.closed) return false;
    if (subscriber.wrote(event.id)) return true;
    subscriber.remember(event.id);
    const outcome = subscriber.sink.write(event);
    if (outcome === "written") return true;
    if (outcome === "gone") this.drop(subscriber);
    else this.fellBehind(subscriber, "its client stopped reading");
    return false;
  }

  private fellBehind(subscriber: Subscriber, why: string) {
    if (subscriber.closed) return;
    this.drop(subscriber);
    this.cutOff++;
    subscriber.sink.cut(why);
    this.parts.logger.warn({ siteId: subscriber.siteId }, `stream cut off: ${why}`);
  }

  /**
   * Writes the site's events after `from` from the store, page by page as its client takes them,
   * then what was heard meanwhile, each event once; again from where asked if asked during it.
   */
  private async catchUp(subscriber: Subscriber, from: string): Promise<void> {
    if (subscriber.held !== undefined) {
      const pending = subscriber.pendingFrom;
      subscriber.pendingFrom = pending === undefined || from < pending ? from : pending;
      return;
    }
    subscriber.held = [];
    try {
      for (let cursor: string | undefined = from; cursor !== undefined && !subscriber.closed;) {
        const rows = await this.parts.store.events.usageAfter(
          subscriber.siteId,
          cursor,
          this.pageSize,
        );
        for (const row of rows) if (!this.write(subscriber, usageEvent(row))) return;
        if (rows.length === this.pageSize) {
          if (!(await subscriber.sink.drained())) {
            this.fellBehind(subscriber, "its client stopped reading while it caught up");
            return;
          }
          cursor = rows.at(-1)!.id;
        } else {
          cursor = subscriber.pendingFrom;
          subscriber.pendingFrom = undefined;
        }
      }
      const held = subscriber.held;
      subscriber.held = undefined;
      for (const event of held) if (!this.write(subscriber, event)) return;
    } catch (err) {
      this.parts.logger.warn(
        { err: messageOf(err), siteId: subscriber.siteId },
        "stream could not catch up from the store",
      );
      this.drop(subscriber);
      subscriber.sink.cut("the store did not answer");
    }
  }
}
