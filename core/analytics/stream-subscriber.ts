/**
 * What the live stream (usage-stream.ts) keeps per subscriber, and the messages its instances
 * exchange: a subscriber's sink, the events it holds while catching up, the ids it has written
 * (so an event both caught up and heard is written once); a message names an instance, a site and
 * the ids of events stored there.
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

/** A message on the usage channel: instance, site, the ids of events stored. */
export interface Stored {
  i: string;
  s: string;
  e: string[];
}

/** How many written ids a subscriber remembers, so an event caught up and also heard is sent once. */
const RECENT_IDS = 16_384;
export class Subscriber {
  /** Events heard live while catching up from the store; undefined when live. */
  held: UsageEvent[] | undefined;
  /** Where another catch-up asked for during this one starts (the least asked). */
  pendingFrom: string | undefined;
  closed = false;
  private readonly recent = new Set<string>();

  constructor(
    readonly siteId: string,
    readonly sink: StreamSink,
    /** The least id it may still lack: its Last-Event-ID, or the moment it subscribed. */
    readonly since: string,
  ) {}

  wrote(id: string): boolean {
    return this.recent.has(id);
  }

  remember(id: string) {
    this.recent.add(id);
    if (this.recent.size > RECENT_IDS) {
      this.recent.delete(this.recent.values().next().value as string);
    }
  }
}

export function parseStored(message: string): Stored | undefined {
  try {
    const parsed = JSON.parse(message) as Partial<Stored>;
    const ok =
      typeof parsed.i === "string" &&
      typeof parsed.s === "string" &&
      Array.isArray(parsed.e) &&
      parsed.e.every((id) => typeof id === "string");
    return ok ? (parsed as Stored) : undefined;
  } catch {
    return undefined;
  }
}
