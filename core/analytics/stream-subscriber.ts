/**
 * What the live stream (usage-stream.ts) keeps per subscriber (its sink, the events it holds
 * while catching up, the last id it has written, so an event both caught up and read live is
 * written once) and per site with subscribers (its feed: how far its events have been read).
 */
import type { UsageEvent } from "../events/event-bus.ts";

/** Where a subscriber's events go: the SSE response. */
export interface StreamSink {
  /**
   * Writes one event: "written", "behind" when its client left too much unread and the sink has
   * cut it off, "gone" when the client has left.
   */
  write(event: UsageEvent): "written" | "behind" | "gone";
  /** Resolves true once the client has taken most of what was written, false if it never does. */
  drained(): Promise<boolean>;
  /** Ends the stream (the client reconnects and catches up). */
  cut(reason: string): void;
}

export class Subscriber {
  /** Events the feed read while this one caught up from the store; undefined when live. */
  held: UsageEvent[] | undefined;
  closed = false;

  constructor(
    readonly siteId: string,
    readonly sink: StreamSink,
    /**
     * The last id written to it, or that its client had seen: ids grow in commit order, so an
     * event at or below it was written (or is one the client has).
     */
    public last: string,
  ) {}
}

/** A site's subscribers on this instance, and how far its events have been read for them. */
export interface Feed {
  siteId: string;
  subscribers: Set<Subscriber>;
  /** The last id read from the store and offered to the subscribers. */
  high: string;
  reading: boolean;
  /** Prompted while reading: read again once done. */
  again: boolean;
  retry: NodeJS.Timeout | undefined;
}

export const newFeed = (siteId: string, high: string): Feed => ({
  siteId,
  subscribers: new Set(),
  high,
  reading: false,
  again: false,
  retry: undefined,
});
