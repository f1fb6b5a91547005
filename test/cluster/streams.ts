/**
 * Subscribers to a site's analytics stream, each connected to one instance directly (by its
 * port). When its stream ends (its instance killed, its channel or store gone) it reconnects as
 * an EventSource does, with `Last-Event-ID` the last id it read: to its own instance when that
 * one answers, else to the next live one. Everything read, over every connection, is kept.
 */
import { openStream, type SseStream } from "../helpers/sse-client.ts";
import { pause } from "./client.ts";
import type { Cluster, Instance } from "./cluster.ts";

export class StreamSubscriber {
  readonly streams: { instance: string; stream: SseStream; lastEventId?: string }[] = [];
  /** Connection attempts refused (status, instance), for the report. */
  readonly refusals: string[] = [];
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    readonly name: string,
    private readonly cluster: Cluster,
    private readonly home: Instance,
    private readonly siteId: string,
    private readonly key: string,
  ) {}

  /** The usage events read, in arrival order, over all its connections. */
  ids(): string[] {
    return this.streams.flatMap(({ stream }) =>
      stream.events.filter((e) => e.event === "usage_event").map((e) => e.id ?? ""),
    );
  }

  get reconnections(): number {
    return Math.max(0, this.streams.length - 1);
  }

  /** Connects (resolves once the first stream is open), then keeps it connected until stopped. */
  async start(): Promise<void> {
    const first = await this.connect(this.home);
    if (first === undefined) throw new Error(`${this.name}: the stream did not open`);
    this.loop = this.keepConnected();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const { stream } of this.streams) stream.close();
    await this.loop;
  }

  private current(): SseStream | undefined {
    return this.streams.at(-1)?.stream;
  }

  private async keepConnected(): Promise<void> {
    while (!this.stopped) {
      if (this.current()?.ended !== true) {
        await pause(50);
        continue;
      }
      // The home instance when it is up, else the next live one.
      const alive = this.cluster.alive();
      const order = [this.home, ...alive.filter((i) => i !== this.home)].filter((i) =>
        alive.includes(i),
      );
      let opened = false;
      for (const instance of order) {
        if (this.stopped || (await this.connect(instance)) !== undefined) {
          opened = true;
          break;
        }
      }
      // EventSource waits its `retry` (2 s here) before reconnecting; a shorter wait finds gaps sooner.
      if (!opened) await pause(500);
    }
  }

  private async connect(instance: Instance): Promise<SseStream | undefined> {
    const last = this.ids().at(-1);
    const headers: Record<string, string> = {
      Accept: "text/event-stream",
      Authorization: `Bearer ${this.key}`,
      ...(last === undefined ? {} : { "Last-Event-ID": last }),
    };
    try {
      const stream = await openStream(
        `${instance.url}/v1/${this.siteId}/analytics/stream`,
        headers,
      );
      if (stream.status !== 200) {
        this.refusals.push(`sv${instance.n} ${stream.status} ${stream.body.slice(0, 120)}`);
        stream.close();
        return undefined;
      }
      this.streams.push({ instance: `sv${instance.n}`, stream, lastEventId: last });
      return stream;
    } catch (error) {
      this.refusals.push(`sv${instance.n} ${(error as Error).message}`);
      return undefined;
    }
  }
}

/**
 * Where an event read twice was read: each connection it came on (its instance, the
 * Last-Event-ID that connection was opened with, and whether the id is above it). An id at or
 * below the Last-Event-ID is the server's replay going wrong; one above it was read out of id
 * order before, which Last-Event-ID cannot express.
 */
export function whereRead(subscriber: StreamSubscriber, id: string): string {
  return subscriber.streams
    .map((s, k) => ({ ...s, k, at: s.stream.events.findIndex((e) => e.id === id) }))
    .filter((s) => s.at !== -1)
    .map((s) => {
      const before = s.stream.events
        .slice(0, s.at)
        .filter((e) => (e.id ?? "") > id)
        .map((e) => e.id);
      const after =
        s.lastEventId === undefined ? "" : ` (${id > s.lastEventId ? "above" : "at or below"} it)`;
      return `connection ${s.k} to ${s.instance}, Last-Event-ID ${s.lastEventId ?? "none"}${after}, position ${s.at}, after ${before.length} higher ids`;
    })
    .join("; ");
}
