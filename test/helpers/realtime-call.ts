/**
 * One call on the Realtime calls stand-in: the JSON events of OpenAI's GA Realtime API on the
 * `oai-events` data channel (API reference, "Realtime client events" and "Realtime server
 * events"). On open it sends `session.created` with the minted session. It answers
 * `session.update` with `session.updated`, `conversation.item.create` with
 * `conversation.item.added` and `conversation.item.done`, and an event it does not know, or a
 * message that is not a JSON event, with an `error` event; `response.create` is only recorded, as
 * the test plays the responses (`callFunction`, `assistantSays`, `respond`). Every server event
 * gets a unique `event_id`. Server-side control connections (`sidebands`, realtime-sideband.ts)
 * get every server event too, and their client events are taken as the data channel's are.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { RealtimePeer } from "./realtime-peer.ts";

export type RealtimeEvent = Record<string, unknown>;

/** The client events of the GA Realtime API; any other type is answered with an error. */
const CLIENT_EVENTS = new Set([
  "session.update",
  "input_audio_buffer.append",
  "input_audio_buffer.commit",
  "input_audio_buffer.clear",
  "output_audio_buffer.clear",
  "conversation.item.create",
  "conversation.item.retrieve",
  "conversation.item.truncate",
  "conversation.item.delete",
  "response.create",
  "response.cancel",
]);
const WAIT_MS = 5000;

/** A server-side control connection, as the call sees it. */
export interface SidebandSocket {
  send(text: string): void;
  close(code: number): void;
}

/** A response's `usage` as the GA Realtime API reports it in `response.done`. */
export interface RealtimeUsage {
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  input_token_details: {
    text_tokens: number;
    audio_tokens: number;
    image_tokens: number;
    cached_tokens: number;
    cached_tokens_details: { text_tokens: number; audio_tokens: number; image_tokens: number };
  };
  output_token_details: { text_tokens: number; audio_tokens: number };
}

interface Waiter {
  match: (event: RealtimeEvent, index: number) => boolean;
  resolve: (event: RealtimeEvent) => void;
  reject: (error: Error) => void;
}

export class RealtimeCall {
  /** The client events received, oldest first. */
  readonly received: RealtimeEvent[] = [];
  /** Resolves once `session.created` is sent; rejects if the call ends before. */
  readonly opened: Promise<void>;
  /** Resolves once the call ended (either side) and its peer is released. */
  readonly closed: Promise<void>;
  /** The client events that came from server-side control connections, oldest first. */
  readonly sidebandEvents: RealtimeEvent[] = [];
  /** The server-side control connections on the call now. */
  readonly sidebands = new Set<SidebandSocket>();
  /** True once the call ended (hung up by either side). */
  ended = false;
  readonly #peer: RealtimePeer;
  readonly #consumed = new Set<RealtimeEvent>();
  #waiters: Waiter[] = [];
  #lastItemId: string | null = null;

  /**
   * @param id The call id, `rtc_…`, as the `Location` header names it.
   * @param token The ephemeral key the call was made with.
   * @param session The effective session: the minted one, then as `session.update` changed it.
   */
  constructor(
    readonly id: string,
    readonly token: string,
    public session: RealtimeEvent,
    peer: RealtimePeer,
  ) {
    this.#peer = peer;
    peer.onMessage((text) => this.#receive(text));
    this.opened = peer.opened.then(() => {
      this.send({ type: "session.created", session: this.session });
    });
    this.opened.catch(() => undefined);
    this.closed = peer.closed.then(() => {
      this.ended = true;
      for (const sideband of this.sidebands) sideband.close(1000);
      this.#failWaiters();
    });
  }

  /**
   * Sends a server event, adding its `event_id`, to the browser and the control connections;
   * throws when it reaches neither (the events channel not open, no control connection). The
   * browser misses what is sent before its channel opens (a control connection may come first).
   */
  send(event: RealtimeEvent): RealtimeEvent {
    const sent = { ...event, event_id: newId("event") };
    const text = JSON.stringify(sent);
    for (const sideband of this.sidebands) sideband.send(text);
    if (!this.#peer.send(text) && this.sidebands.size === 0) {
      throw new Error(`cannot send ${String(event.type)}: the events channel is not open`);
    }
    return sent;
  }

  /** The first client event of `type` not yet taken by a wait, received already or to come. */
  nextEvent(type: string, timeoutMs = WAIT_MS): Promise<RealtimeEvent> {
    return this.#take((event) => event.type === type, timeoutMs, type);
  }

  /**
   * Plays a response that calls the function `name` with `args`, then waits for the client's
   * `function_call_output` of that call and a `response.create` after it; resolves with the
   * output parsed as JSON.
   */
  async callFunction(name: string, args: unknown, timeoutMs = WAIT_MS): Promise<unknown> {
    const [responseId, itemId, callId] = [newId("resp"), newId("item"), newId("call")];
    const item = { id: itemId, object: "realtime.item", type: "function_call", call_id: callId };
    const done = { ...item, name, arguments: JSON.stringify(args), status: "completed" };
    const at = { response_id: responseId, output_index: 0 };
    this.send({ type: "response.created", response: response(responseId, "in_progress", []) });
    this.send({
      type: "response.output_item.added",
      ...at,
      item: { ...item, name, arguments: "", status: "in_progress" },
    });
    this.send({
      type: "response.function_call_arguments.done",
      ...at,
      item_id: itemId,
      call_id: callId,
      name,
      arguments: done.arguments,
    });
    this.send({ type: "response.output_item.done", ...at, item: done });
    this.send({ type: "response.done", response: response(responseId, "completed", [done]) });

    const output = await this.#take(
      (event) => isOutputOf(event, callId),
      timeoutMs,
      `function_call_output of ${callId}`,
    );
    const after = this.received.indexOf(output);
    await this.#take(
      (event, index) => event.type === "response.create" && index > after,
      timeoutMs,
      `response.create after the output of ${callId}`,
    );
    return JSON.parse((output.item as { output: string }).output) as unknown;
  }

  /** A response of the model that used `usage`: `response.created`, then `response.done`. */
  respond(usage: RealtimeUsage): string {
    const responseId = newId("resp");
    this.send({ type: "response.created", response: response(responseId, "in_progress", []) });
    const done = { ...response(responseId, "completed", []), usage };
    this.send({ type: "response.done", response: done });
    return responseId;
  }

  /** A client event as if the visitor's page sent it on the data channel (a virtual call's). */
  fromBrowser(event: RealtimeEvent): void {
    this.#receive(JSON.stringify(event));
  }

  /** A client event from a server-side control connection, taken as the data channel's are. */
  receiveFromSideband(text: string): void {
    const event = parseEvent(text);
    if (event !== undefined) this.sidebandEvents.push(event);
    this.#receive(text);
  }

  /** The visitor's turn: speech started and stopped, then its transcript. */
  visitorSays(text: string): void {
    const itemId = newId("item");
    this.send({ type: "input_audio_buffer.speech_started", audio_start_ms: 0, item_id: itemId });
    this.send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: 1000, item_id: itemId });
    this.send({
      type: "conversation.item.input_audio_transcription.completed",
      item_id: itemId,
      content_index: 0,
      transcript: text,
    });
  }

  /** The assistant's turn: its audio starts, its transcript, `speakingMs` later its audio stops. */
  async assistantSays(text: string, speakingMs = 300): Promise<void> {
    const [responseId, itemId] = [newId("resp"), newId("item")];
    this.send({ type: "response.created", response: response(responseId, "in_progress", []) });
    this.send({ type: "output_audio_buffer.started", response_id: responseId });
    this.send({
      type: "response.output_audio_transcript.done",
      response_id: responseId,
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      transcript: text,
    });
    await delay(speakingMs);
    this.send({ type: "output_audio_buffer.stopped", response_id: responseId });
    const message = {
      id: itemId,
      object: "realtime.item",
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_audio", transcript: text }],
    };
    this.send({ type: "response.done", response: response(responseId, "completed", [message]) });
  }

  audioPacketsSent(): number {
    return this.#peer.audioPacketsSent();
  }

  audioPacketsReceived(): number {
    return this.#peer.audioPacketsReceived();
  }

  /** The provider ends the call: its peer connection closes, and its control connections. */
  hangUp(): void {
    this.ended = true;
    this.#peer.close();
  }

  #receive(text: string): void {
    const event = parseEvent(text);
    if (event === undefined) {
      this.#error("The message is not a JSON object with a string 'type'.", "invalid_json", null);
      return;
    }
    this.received.push(event);
    this.#answer(event);
    const index = this.received.length - 1;
    const waiter = this.#waiters.find((candidate) => candidate.match(event, index));
    if (waiter === undefined) return;
    this.#consumed.add(event);
    this.#waiters = this.#waiters.filter((candidate) => candidate !== waiter);
    waiter.resolve(event);
  }

  #answer(event: RealtimeEvent): void {
    const eventId = typeof event.event_id === "string" ? event.event_id : null;
    if (!CLIENT_EVENTS.has(event.type as string)) {
      this.#error(`Invalid value: '${String(event.type)}'.`, "invalid_value", eventId, "type");
    } else if (event.type === "session.update") {
      this.session = { ...this.session, ...(event.session as RealtimeEvent) };
      this.send({ type: "session.updated", session: this.session });
    } else if (event.type === "conversation.item.create") {
      const item = { id: newId("item"), status: "completed", ...(event.item as RealtimeEvent) };
      const previous = this.#lastItemId;
      this.#lastItemId = item.id as string;
      this.send({ type: "conversation.item.added", previous_item_id: previous, item });
      this.send({ type: "conversation.item.done", previous_item_id: previous, item });
    }
  }

  #error(message: string, code: string, eventId: string | null, param: string | null = null) {
    const error = { type: "invalid_request_error", code, message, param, event_id: eventId };
    this.send({ type: "error", error });
  }

  #take(match: Waiter["match"], timeoutMs: number, what: string): Promise<RealtimeEvent> {
    const index = this.received.findIndex(
      (event, at) => !this.#consumed.has(event) && match(event, at),
    );
    if (index >= 0) {
      const event = this.received[index] as RealtimeEvent;
      this.#consumed.add(event);
      return Promise.resolve(event);
    }
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        clearTimeout(timer);
        this.#waiters = this.#waiters.filter((candidate) => candidate !== waiter);
        reject(error);
      };
      const waiter: Waiter = {
        match,
        resolve: (event) => (clearTimeout(timer), resolve(event)),
        reject: (error) => fail(new Error(`${what} never came: ${error.message}`)),
      };
      const timer = setTimeout(() => {
        const types = this.received.map((event) => event.type).join(", ");
        fail(new Error(`no ${what} within ${timeoutMs} ms (received: ${types || "nothing"})`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  #failWaiters(): void {
    for (const waiter of this.#waiters) waiter.reject(new Error("the call ended"));
  }
}

function isOutputOf(event: RealtimeEvent, callId: string): boolean {
  const item = event.item as RealtimeEvent | undefined;
  return (
    event.type === "conversation.item.create" &&
    item?.type === "function_call_output" &&
    item.call_id === callId
  );
}

function response(id: string, status: string, output: unknown[]): RealtimeEvent {
  return { id, object: "realtime.response", status, output };
}

function parseEvent(text: string): RealtimeEvent | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    const isEvent =
      typeof value === "object" &&
      value !== null &&
      typeof (value as RealtimeEvent).type === "string";
    return isEvent ? (value as RealtimeEvent) : undefined;
  } catch {
    return undefined;
  }
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString("hex")}`;
}
