/**
 * One call on the Realtime calls stand-in: the JSON events of OpenAI's GA Realtime API on the
 * `oai-events` data channel, in the shapes and order OpenAI documents them. Sources: API reference
 * "Realtime client events" and "Realtime server events"
 * (https://platform.openai.com/docs/api-reference/realtime-client-events, …-server-events), the
 * guide "Realtime conversations" (https://platform.openai.com/docs/guides/realtime-conversations),
 * and the official SDK's types generated from the same spec (openai-node,
 * src/resources/realtime/realtime.ts). What it follows:
 *
 * - On open, `session.created` with the minted session. `session.update` is answered with
 *   `session.updated` and the effective session (only the fields sent change).
 * - Text input: the client's `conversation.item.create` with `item: {type: "message", role:
 *   "user", content: [{type: "input_text", text}]}` (optional `id`, `previous_item_id`) is answered
 *   with `conversation.item.added` then `conversation.item.done`, each `{previous_item_id, item}`
 *   with the item's `id` and `object: "realtime.item"`; the client then sends `response.create`
 *   (with an optional `response: {output_modalities, instructions, …}` for that response only).
 *   `nextTyped` takes what was typed. A malformed item, an unknown field, or an unknown event
 *   type is answered with an `error` event `{error: {type: "invalid_request_error", code,
 *   message, param, event_id}}` (realtime-items.ts) and not acted on.
 * - Output: a session's (or a response's) `output_modalities` is `["audio"]` (the default: audio
 *   and its transcript) or `["text"]`, never both. Every response: `response.created`,
 *   `response.output_item.added` and `conversation.item.added` (the assistant message, in
 *   progress), `response.content_part.added`, then for audio `response.output_audio_transcript.
 *   delta`… and `.done {transcript}` (over WebRTC also `output_audio_buffer.started`/`.stopped`),
 *   for text `response.output_text.delta`… and `.done {text}`, each with `response_id, item_id,
 *   output_index, content_index`; then `response.content_part.done`, `response.output_item.done`,
 *   `conversation.item.done` (content `output_audio {transcript}` or `output_text {text}`), and
 *   `response.done`. `assistantSays` and `assistantWrites` play them, and refuse the modality not
 *   in effect. Function calls (`callFunction`) are the same in text and audio sessions.
 * - The visitor's speech: `input_audio_buffer.speech_started`, `.speech_stopped`, `.committed`,
 *   the user message added with `input_audio` content, then, only when the session sets
 *   `audio.input.transcription` (off by default), `conversation.item.input_audio_transcription.
 *   delta {item_id, content_index, delta}`… and `.completed {item_id, content_index, transcript,
 *   usage}`, which may come before or after the response's events (`visitorSays`).
 *
 * Every server event gets a unique `event_id`. Server-side control connections (`sidebands`,
 * realtime-sideband.ts) get every server event too, and their client events are taken as the data
 * channel's are. Not modelled: audio bytes as events (WebRTC carries audio as RTP), the
 * `function_call` items in `conversation.item.added`, and checking that a `function_call_output`
 * names a call in the conversation.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { clientEventProblem } from "./realtime-items.ts";
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
  /** The client events answered with an error: no wait takes them. */
  readonly #refused = new Set<RealtimeEvent>();
  #waiters: Waiter[] = [];
  #lastItemId: string | null = null;
  /** The output modality the last unanswered `response.create` asked for, if it did. */
  #asked: string | undefined;

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
   * The text of the next user message the client added (`conversation.item.create` of a `message`
   * with `input_text` content) not yet taken by a wait: what the visitor typed, or a turn a
   * resumed call reminds the model of.
   */
  async nextTyped(timeoutMs = WAIT_MS): Promise<string> {
    const event = await this.#take(isTyped, timeoutMs, "typed text (a user input_text item)");
    const content = (event.item as { content: { type: string; text?: string }[] }).content;
    return content.map((part) => part.text ?? "").join("");
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
    const modalities = [this.#modality(true)];
    this.send({
      type: "response.created",
      response: response(responseId, "in_progress", [], modalities),
    });
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
    this.send({
      type: "response.done",
      response: response(responseId, "completed", [done], modalities),
    });

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
    const modalities = [this.#modality(true)];
    this.send({
      type: "response.created",
      response: response(responseId, "in_progress", [], modalities),
    });
    const done = { ...response(responseId, "completed", [], modalities), usage };
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

  /**
   * The visitor's spoken turn, as OpenAI reports it with server VAD: speech started and stopped,
   * the buffer committed as a user message with audio, then its transcription in deltas and
   * completed. OpenAI transcribes only when the session sets `audio.input.transcription`, so this
   * throws otherwise, unless `evenUnconfigured` (a test of a widget whose session does not set it
   * yet: the events are ones OpenAI would not send).
   */
  visitorSays(text: string, options: { evenUnconfigured?: boolean } = {}): void {
    const audio = this.session.audio as { input?: { transcription?: unknown } } | undefined;
    if (!audio?.input?.transcription && options.evenUnconfigured !== true) {
      throw new Error("OpenAI transcribes nothing: the session has no audio.input.transcription");
    }
    const itemId = newId("item");
    this.send({ type: "input_audio_buffer.speech_started", audio_start_ms: 0, item_id: itemId });
    this.send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: 1000, item_id: itemId });
    const previous = this.#lastItemId;
    this.send({
      type: "input_audio_buffer.committed",
      previous_item_id: previous,
      item_id: itemId,
    });
    this.#added({
      id: itemId,
      object: "realtime.item",
      type: "message",
      status: "completed",
      role: "user",
      content: [{ type: "input_audio", transcript: null }],
    });
    const at = { item_id: itemId, content_index: 0 };
    for (const delta of chunks(text)) {
      this.send({ type: "conversation.item.input_audio_transcription.delta", ...at, delta });
    }
    this.send({
      type: "conversation.item.input_audio_transcription.completed",
      ...at,
      transcript: text,
      usage: { type: "duration", seconds: 1 },
    });
  }

  /**
   * The assistant's spoken turn: the message item and its audio part added, its audio starts, the
   * transcript in deltas and done, `speakingMs` later its audio stops, then the part, the item and
   * the response done. Throws when the response is to be text only (see `#modality`).
   */
  async assistantSays(text: string, speakingMs = 300): Promise<void> {
    const turn = this.#startMessage("audio", { type: "audio", transcript: "" });
    this.send({ type: "output_audio_buffer.started", response_id: turn.responseId });
    for (const delta of chunks(text)) {
      this.send({ type: "response.output_audio_transcript.delta", ...turn.at, delta });
    }
    this.send({ type: "response.output_audio_transcript.done", ...turn.at, transcript: text });
    await delay(speakingMs);
    this.send({ type: "output_audio_buffer.stopped", response_id: turn.responseId });
    turn.finish({ type: "audio", transcript: text }, { type: "output_audio", transcript: text });
  }

  /**
   * The assistant's written turn: the message item and its text part added, the text in deltas
   * and done, then the part, the item and the response done. Throws when the response is to be
   * audio (see `#modality`), as OpenAI then sends no text.
   */
  assistantWrites(text: string): void {
    const turn = this.#startMessage("text", { type: "text", text: "" });
    for (const delta of chunks(text)) {
      this.send({ type: "response.output_text.delta", ...turn.at, delta });
    }
    this.send({ type: "response.output_text.done", ...turn.at, text });
    turn.finish({ type: "text", text }, { type: "output_text", text });
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

  /**
   * The modality of the next response: the one the last `response.create` not yet answered asked
   * for (`response.output_modalities`, for that response only), else the session's (`["audio"]`
   * when unset). Playing a response answers it.
   */
  #modality(answering = false): string {
    const session = this.session.output_modalities as string[] | undefined;
    const modality = this.#asked ?? session?.[0] ?? "audio";
    if (answering) this.#asked = undefined;
    return modality;
  }

  /** Opens a response with one assistant message, up to its content part added. */
  #startMessage(modality: "text" | "audio", part: RealtimeEvent) {
    const inEffect = this.#modality();
    if (inEffect !== modality) {
      throw new Error(`OpenAI would not send ${modality}: output_modalities is [${inEffect}]`);
    }
    this.#modality(true);
    const [responseId, itemId] = [newId("resp"), newId("item")];
    const modalities = [modality];
    const item = { id: itemId, object: "realtime.item", type: "message", role: "assistant" };
    const at = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
    this.send({
      type: "response.created",
      response: response(responseId, "in_progress", [], modalities),
    });
    const started = { ...item, status: "in_progress", content: [] };
    this.send({
      type: "response.output_item.added",
      response_id: responseId,
      output_index: 0,
      item: started,
    });
    const previous = this.#added(started, false);
    this.send({ type: "response.content_part.added", ...at, part });
    return {
      responseId,
      at,
      finish: (donePart: RealtimeEvent, content: RealtimeEvent) => {
        this.send({ type: "response.content_part.done", ...at, part: donePart });
        const done = { ...item, status: "completed", content: [content] };
        this.send({
          type: "response.output_item.done",
          response_id: responseId,
          output_index: 0,
          item: done,
        });
        this.send({ type: "conversation.item.done", previous_item_id: previous, item: done });
        this.send({
          type: "response.done",
          response: response(responseId, "completed", [done], modalities),
        });
      },
    };
  }

  /**
   * `conversation.item.added` for `item`, after the conversation's last item, and, when it is
   * complete already (the client's items, a committed buffer), `conversation.item.done`; returns
   * the id of the item before it.
   */
  #added(item: RealtimeEvent & { id: string }, complete = true): string | null {
    const previous = this.#lastItemId;
    this.#lastItemId = item.id;
    this.send({ type: "conversation.item.added", previous_item_id: previous, item });
    if (complete) this.send({ type: "conversation.item.done", previous_item_id: previous, item });
    return previous;
  }

  #receive(text: string): void {
    const event = parseEvent(text);
    if (event === undefined) {
      this.#error("The message is not a JSON object with a string 'type'.", "invalid_json", null);
      return;
    }
    this.received.push(event);
    if (!this.#answer(event)) {
      this.#refused.add(event);
      return;
    }
    const index = this.received.length - 1;
    const waiter = this.#waiters.find((candidate) => candidate.match(event, index));
    if (waiter === undefined) return;
    this.#consumed.add(event);
    this.#waiters = this.#waiters.filter((candidate) => candidate !== waiter);
    waiter.resolve(event);
  }

  /** Answers a client event as OpenAI does; false when it refused it with an `error` event. */
  #answer(event: RealtimeEvent): boolean {
    const eventId = typeof event.event_id === "string" ? event.event_id : null;
    if (!CLIENT_EVENTS.has(event.type as string)) {
      this.#error(`Invalid value: '${String(event.type)}'.`, "invalid_value", eventId, "type");
      return false;
    }
    const problem = clientEventProblem(event);
    if (problem !== undefined) {
      this.send({ type: "error", error: { ...problem.error, event_id: eventId } });
      return false;
    }
    if (event.type === "response.create") {
      const params = event.response as { output_modalities?: string[] } | undefined;
      this.#asked = params?.output_modalities?.[0];
    } else if (event.type === "session.update") {
      this.session = merged(this.session, event.session as RealtimeEvent);
      this.send({ type: "session.updated", session: this.session });
    } else if (event.type === "conversation.item.create") {
      const item = event.item as RealtimeEvent;
      const id = typeof item.id === "string" ? item.id : newId("item");
      this.#added({ status: "completed", ...item, id, object: "realtime.item" });
    }
    return true;
  }

  #error(message: string, code: string, eventId: string | null, param: string | null = null) {
    const error = { type: "invalid_request_error", code, message, param, event_id: eventId };
    this.send({ type: "error", error });
  }

  #take(match: Waiter["match"], timeoutMs: number, what: string): Promise<RealtimeEvent> {
    const index = this.received.findIndex(
      (event, at) => !this.#consumed.has(event) && !this.#refused.has(event) && match(event, at),
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

function response(
  id: string,
  status: string,
  output: unknown[],
  modalities = ["audio"],
): RealtimeEvent {
  return { id, object: "realtime.response", status, output, output_modalities: modalities };
}

/** The user message items whose content is text (the client's typed turns). */
function isTyped(event: RealtimeEvent): boolean {
  const item = event.item as { type?: string; role?: string; content?: { type?: string }[] };
  return (
    event.type === "conversation.item.create" &&
    item.type === "message" &&
    item.role === "user" &&
    item.content?.some((part) => part.type === "input_text") === true
  );
}

/** `text` in the pieces a model streams it in: a word with the spaces after it. */
function chunks(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/);
}

/**
 * `session` updated with `update` as `session.update` does: only the fields present change, and
 * nested objects (`audio.input`) keep the fields the update leaves out; arrays are replaced.
 */
function merged(session: RealtimeEvent, update: RealtimeEvent): RealtimeEvent {
  const result = { ...session };
  for (const [key, value] of Object.entries(update)) {
    const before = result[key];
    result[key] = isRecord(value) && isRecord(before) ? merged(before, value) : (value as unknown);
  }
  return result;
}

function isRecord(value: unknown): value is RealtimeEvent {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
