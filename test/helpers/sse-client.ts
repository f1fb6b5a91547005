/**
 * A Server-Sent Events client over a real socket (node:http), reading the stream as the HTML
 * standard's parser does: `field: value` lines, a blank line ending an event, `:` comments. It
 * keeps what it read for the test to look at, and waits for more on request.
 */
import http from "node:http";
import { setTimeout as pause } from "node:timers/promises";

export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body of an answer other than a stream (an error envelope). */
  body: string;
  events: SseEvent[];
  /** Comment lines read (the heartbeat). */
  comments: number;
  /** The reconnection time the server asked for. */
  retry?: number;
  /** True once the server has ended or cut the stream. */
  ended: boolean;
  /** Waits until `count` events in all have arrived; fails after `ms`. */
  waitFor(count: number, ms?: number): Promise<SseEvent[]>;
  /** Waits until the server ends the stream; fails after `ms`. */
  waitForEnd(ms?: number): Promise<void>;
  close(): void;
}

export function openStream(url: string, headers: Record<string, string>): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: "",
        events: [],
        comments: 0,
        ended: false,
        async waitFor(count, ms = 10_000) {
          await until(() => stream.events.length >= count || stream.ended, ms, "events");
          if (stream.events.length < count) {
            throw new Error(`the stream ended after ${stream.events.length} of ${count} events`);
          }
          return stream.events.slice(0, count);
        },
        async waitForEnd(ms = 10_000) {
          await until(() => stream.ended, ms, "the end of the stream");
        },
        close: () => req.destroy(),
      };
      res.setEncoding("utf8");
      const parse = parser(stream);
      res.on("data", (chunk: string) => {
        if (stream.status === 200) parse(chunk);
        else stream.body += chunk;
      });
      const end = () => {
        stream.ended = true;
      };
      res.on("end", end);
      res.on("close", end);
      res.on("error", end);
      resolve(stream);
    });
    req.on("error", reject);
  });
}

async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await pause(10);
  }
}

/** Feeds chunks of the stream into `stream`'s events, comments and retry. */
function parser(stream: SseStream): (chunk: string) => void {
  let pending = "";
  let event: { event?: string; id?: string; data?: string[] } = {};
  const line = (text: string) => {
    if (text === "") {
      if (event.data !== undefined) {
        stream.events.push({
          event: event.event ?? "message",
          ...(event.id === undefined ? {} : { id: event.id }),
          data: event.data.join("\n"),
        });
      }
      event = {};
      return;
    }
    if (text.startsWith(":")) {
      stream.comments += 1;
      return;
    }
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    const value = colon === -1 ? "" : text.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event.event = value;
    else if (field === "id") event.id = value;
    else if (field === "data") (event.data ??= []).push(value);
    else if (field === "retry" && /^\d+$/.test(value)) stream.retry = Number(value);
  };
  return (chunk) => {
    pending += chunk;
    const lines = pending.split(/\r\n|\r|\n/);
    pending = lines.pop() ?? "";
    for (const text of lines) line(text);
  };
}
