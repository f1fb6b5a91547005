/**
 * A client of the Realtime calls stand-in for tests of its events: a Chromium page that connects
 * as the widget does (realtime-widget-page.ts), with or without a microphone, seen from Node: the
 * calls endpoint's answer, the server events the page received, and client events sent on its
 * `oai-events` channel.
 */
import type { Page } from "playwright-core";
import type { RealtimeEvent } from "./realtime-call.ts";
import type { PageAudio, WidgetPage } from "./realtime-widget-page.ts";
import { waitUntil } from "./wait-until.ts";

export interface RealtimeClient {
  /** The calls endpoint's status, and OpenAI's error body when it refused the offer. */
  status: number;
  refusal: unknown;
  /** Sends a client event on the events channel. */
  send(event: RealtimeEvent): Promise<void>;
  /** The server events received, oldest first. */
  events(): Promise<RealtimeEvent[]>;
  /** The first server event after index `after` of `events()` that matches, once received. */
  next(match: (event: RealtimeEvent) => boolean, after?: number): Promise<RealtimeEvent>;
  /** The types received after index `after`, in order. */
  typesSince(after: number): Promise<string[]>;
}

const WAIT_MS = 5000;

/** Connects `page`, which shows REALTIME_WIDGET_PAGE, to the calls endpoint at `url`. */
export async function connectPage(
  page: Page,
  url: string,
  token: string,
  audio: PageAudio,
): Promise<RealtimeClient> {
  const connected = await page.evaluate(
    ([u, t, a]) => (window as unknown as WidgetPage).connect(u, t, a),
    [url, token, audio] as const,
  );
  const events = () =>
    page.evaluate(() => (window as unknown as WidgetPage).events) as Promise<RealtimeEvent[]>;
  return {
    status: connected.status,
    refusal: connected.refusal,
    send: async (event) => {
      await page.waitForFunction(() => (window as unknown as WidgetPage).dc.readyState === "open");
      await page.evaluate(
        (e) => (window as unknown as WidgetPage).dc.send(JSON.stringify(e)),
        event,
      );
    },
    events,
    next: async (match, after = -1) => {
      let found: RealtimeEvent | undefined;
      await waitUntil(
        "a matching server event",
        async () => {
          found = (await events()).find((event, index) => index > after && match(event));
          return found !== undefined;
        },
        WAIT_MS,
      );
      return found as RealtimeEvent;
    },
    typesSince: async (after) => (await events()).slice(after + 1).map((e) => String(e.type)),
  };
}
