/**
 * The live stream of a site's usage events (`GET /v1/:siteId/analytics/stream`), behind the SSE
 * route: who is subscribed to which site on this instance, and what reaches them.
 *
 * The store is the source of truth, the channel only a prompt. A site's usage event ids grow in
 * the order their batches commit, whichever instance wrote them (core/store/repos/
 * usage-stream-heads.ts), so every event below the last id read has committed. Each site with
 * subscribers here has a feed: the last id it has read, and a read of the store's events after it
 * whenever it is prompted: by a batch stored on this instance (the event bus), by a message on the
 * usage channel (core/pubsub: Redis, else PostgreSQL LISTEN/NOTIFY) naming a batch stored on
 * another, or by the channel coming back after a cut (which may have lost messages). So events
 * reach every subscriber in id order, none skipped, and a client that reconnects with the last id
 * it saw gets exactly the rest: it first catches up from the store, what the feed reads meanwhile
 * held and written after, each event once.
 *
 * Memory stays bounded: a subscriber whose client does not keep up (its unsent output past the
 * sink's limit, or more held events than `maxHeld`) is cut off. Its client reconnects with
 * `Last-Event-ID` and loses nothing.
 */
import crypto from "node:crypto";
import type { Logger } from "pino";
import { usageEvent, type EventBus, type UsageEvent } from "../events/event-bus.ts";
import { MAYBE_MISSED, type Channel, type Topic } from "../pubsub/channel.ts";
import type { Store } from "../store/store.ts";
import { messageOf } from "../util/message-of.ts";
import { errors } from "../errors.ts";
import { parseStored, StoredAnnouncer } from "./stream-announcer.ts";
import { StreamSlots } from "./stream-slots.ts";
import { newFeed, Subscriber, type Feed, type StreamSink } from "./stream-subscriber.ts";

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
  /** Events read from the store at a time. */
  pageSize?: number;
  /** How long ids wait to be published together. */
  publishDelayMs?: number;
  /** How long a feed waits to read again after the store failed it. */
  retryMs?: number;
}

export class UsageStream {
  private readonly feeds = new Map<string, Feed>();
  private readonly opening = new Map<string, Promise<Feed>>();
  private readonly announcer: StoredAnnouncer;
  private readonly maxHeld: number;
  private readonly pageSize: number;
  private readonly retryMs: number;
  private closed = false;
  private ending = false;
  /** Subscribers cut off for falling behind, since start. */
  cutOff = 0;
  /** The caps' count of open streams: each takes a slot before it subscribes. */
  readonly slots = new StreamSlots();

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
    this.announcer = new StoredAnnouncer(
      parts.channel,
      crypto.randomUUID(),
      options.publishDelayMs ?? 20,
    );
    this.retryMs = options.retryMs ?? 1_000;
    parts.events.subscribe((bused) => {
      if (bused.kind === "usage") this.recorded(bused.event);
    });
    parts.channel.subscribe((message) => this.heard(message));
  }

  /**
   * Subscribes `sink` to `siteId`'s events: those after `lastEventId` first, from the store, then
   * each as it is stored. Resolves with the unsubscribe function once it is live.
   */
  async subscribe(siteId: string, sink: StreamSink, lastEventId?: string): Promise<() => void> {
    if (this.ending) throw errors.serviceUnavailable("The service is shutting down; reconnect");
    const feed = await this.feedOf(siteId);
    if (this.ending) throw errors.serviceUnavailable("The service is shutting down; reconnect");
    const subscriber = new Subscriber(siteId, sink, lastEventId ?? feed.high);
    feed.subscribers.add(subscriber);
    // Put back if its last subscriber left while this one waited for it.
    this.feeds.set(siteId, feed);
    const unsubscribe = () => this.drop(subscriber);
    if (lastEventId !== undefined) await this.catchUp(subscriber);
    return unsubscribe;
  }

  /** False once the instance is stopping: new streams are refused. */
  get accepting(): boolean {
    return !this.ending;
  }

  /** How many subscribers this instance has, to one site or in all. */
  count(siteId?: string): number {
    if (siteId !== undefined) return this.feeds.get(siteId)?.subscribers.size ?? 0;
    let total = 0;
    for (const feed of this.feeds.values()) total += feed.subscribers.size;
    return total;
  }

  /**
   * Ends every stream and refuses new ones (503): the instance is stopping, and its clients
   * reconnect to another one. Events recorded meanwhile are still published.
   */
  endStreams() {
    this.ending = true;
    for (const feed of [...this.feeds.values()]) {
      for (const subscriber of [...feed.subscribers]) {
        this.drop(subscriber);
        subscriber.sink.cut("the service is shutting down");
      }
    }
  }

  /** Ends every stream and publishes what is waiting; called after the event bus has flushed. */
  async close(): Promise<void> {
    this.endStreams();
    this.closed = true;
    await this.announcer.publish();
  }

  /** The site's feed, made (from the site's last id in the store) for its first subscriber. */
  private async feedOf(siteId: string): Promise<Feed> {
    const known = this.feeds.get(siteId);
    if (known !== undefined) return known;
    let opening = this.opening.get(siteId);
    if (opening === undefined) {
      opening = this.parts.store.events.streamHead(siteId).then((high) => {
        const feed = newFeed(siteId, high);
        this.feeds.set(siteId, feed);
        // What was stored while the head was read and announced before the feed was there.
        void this.read(feed);
        return feed;
      });
      this.opening.set(siteId, opening);
      void opening.finally(() => this.opening.delete(siteId)).catch(() => undefined);
    }
    return opening;
  }

  private drop(subscriber: Subscriber) {
    subscriber.closed = true;
    const feed = this.feeds.get(subscriber.siteId);
    if (feed === undefined) return;
    feed.subscribers.delete(subscriber);
    if (feed.subscribers.size === 0) {
      this.feeds.delete(subscriber.siteId);
      clearTimeout(feed.retry);
    }
  }

  /** An event stored by this instance: read for its subscribers now, told to the others soon. */
  private recorded(event: UsageEvent) {
    const feed = this.feeds.get(event.site_id);
    if (feed !== undefined) void this.read(feed);
    if (this.parts.shared && !this.closed) this.announcer.add(event.site_id, event.id);
  }

  /** A message on the usage channel: a batch another instance stored, or a cut channel back. */
  private heard(message: string) {
    if (message === MAYBE_MISSED) {
      for (const feed of this.feeds.values()) void this.read(feed);
      return;
    }
    const stored = parseStored(message);
    if (stored === undefined || stored.i === this.announcer.instance) return;
    const feed = this.feeds.get(stored.s);
    if (feed !== undefined) void this.read(feed);
  }

  /**
   * Reads the site's events after the feed's last id, in id order, and offers them to its
   * subscribers, until none is left; once more if prompted meanwhile. A store that fails is
   * read again `retryMs` later: the events are there, only late.
   */
  private async read(feed: Feed): Promise<void> {
    if (feed.reading) {
      feed.again = true;
      return;
    }
    feed.reading = true;
    clearTimeout(feed.retry);
    feed.retry = undefined;
    try {
      do {
        feed.again = false;
        let rows;
        do {
          rows = await this.parts.store.events.usageAfter(feed.siteId, feed.high, this.pageSize);
          if (rows.length > 0) {
            feed.high = rows.at(-1)!.id;
            this.offer(feed, rows.map(usageEvent));
          }
        } while (rows.length === this.pageSize && this.feeds.get(feed.siteId) === feed);
      } while (feed.again && this.feeds.get(feed.siteId) === feed);
    } catch (err) {
      this.parts.logger.warn(
        { err: messageOf(err), siteId: feed.siteId },
        "stream could not read events; trying again",
      );
      if (this.feeds.get(feed.siteId) === feed && !this.closed) {
        feed.retry = setTimeout(() => void this.read(feed), this.retryMs);
      }
    } finally {
      feed.reading = false;
    }
  }

  /** Events read for the site, in id order, to each subscriber: written, or held while it catches up. */
  private offer(feed: Feed, events: readonly UsageEvent[]) {
    for (const subscriber of [...feed.subscribers]) {
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

  /** Writes `event` unless it was (its id not above the last written); false once gone. */
  private write(subscriber: Subscriber, event: UsageEvent): boolean {
    if (subscriber.closed) return false;
    if (event.id <= subscriber.last) return true;
    subscriber.last = event.id;
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
   * Writes the site's events after the subscriber's last id from the store, page by page as its
   * client takes them, then what its feed read meanwhile, each event once and in id order.
   */
  private async catchUp(subscriber: Subscriber): Promise<void> {
    subscriber.held = [];
    try {
      for (let cursor = subscriber.last; !subscriber.closed;) {
        const rows = await this.parts.store.events.usageAfter(
          subscriber.siteId,
          cursor,
          this.pageSize,
        );
        for (const row of rows) if (!this.write(subscriber, usageEvent(row))) return;
        if (rows.length < this.pageSize) break;
        if (!(await subscriber.sink.drained())) {
          this.fellBehind(subscriber, "its client stopped reading while it caught up");
          return;
        }
        cursor = rows.at(-1)!.id;
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
