/**
 * One WebRTC call to the voice provider, as OpenAI's Realtime API takes it: the microphone's track
 * and a data channel named `oai-events` in an SDP offer POSTed to `connect_url` with the ephemeral
 * token (`Content-Type: application/sdp`), the SDP answer back, then JSON events both ways on the
 * channel. The provider's audio plays from an Audio element that is never in the page.
 *
 * A text conversation is the same call without a microphone: the offer receives audio only (the
 * provider refuses an offer without an audio section), the session answers in text
 * (`output_modalities: ["text"]`, set by the service), and what the visitor types goes in as an
 * `input_text` message followed by `response.create`, as it does during a voice call.
 *
 * It tells its owner the call's state (listening while the visitor may speak, speaking while the
 * provider's audio plays; ready and writing in text), the visitor's and the assistant's words
 * from the transcription and text events, the function calls to run (each once, by call_id), and
 * when the call was lost. A function's output goes back as a `function_call_output` item followed
 * by `response.create`. A call not connected within 10 seconds fails (a network blocking WebRTC).
 */
import type { ProviderSession, Turn } from "./types.ts";

export type CallState = "connecting" | "listening" | "speaking" | "ready" | "writing";

export interface FunctionCall {
  call_id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface CallHandlers {
  state(state: CallState): void;
  turn(turn: Turn): void;
  /** Runs a function; what it resolves to is the output the model reads. */
  functionCall(call: FunctionCall): Promise<unknown>;
  /** The call went away without `close()`: the network, or the provider ended it. */
  lost(): void;
}

/**
 * Why connecting failed: the provider refused the offer (its HTTP status), no answer came (0), or
 * the connection was not made in time (-1).
 */
export class CallError extends Error {
  constructor(readonly status: number) {
    super(`The voice provider answered ${status}`);
  }
}

/** How long a call may take to open its data channel before it counts as failed. */
const CONNECT_TIMEOUT_MS = 10_000;

/** How long a connection may stay "disconnected" before it counts as lost. */
const DISCONNECTED_GRACE_MS = 5000;
/** Earlier turns given back to the model when a call resumes a conversation. */
const HISTORY_TURNS = 20;

type ServerEvent = { type?: string; [key: string]: unknown };

export class VoiceCall {
  private readonly pc = new RTCPeerConnection();
  private readonly channel: RTCDataChannel;
  private readonly audio = new Audio();
  private readonly handled = new Set<string>();
  private closed = false;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** The provider's id for the call (the `Location` of its answer), when it exposes it. */
  callId: string | undefined;

  private constructor(
    private readonly microphone: MediaStream | undefined,
    private readonly handlers: CallHandlers,
    private readonly history: Turn[],
  ) {
    this.audio.autoplay = true;
    this.pc.ontrack = (event) => {
      if (this.microphone === undefined) return;
      this.audio.srcObject = event.streams[0] ?? new MediaStream([event.track]);
      this.audio.play().catch(() => undefined);
    };
    if (microphone === undefined) this.pc.addTransceiver("audio", { direction: "recvonly" });
    else for (const track of microphone.getAudioTracks()) this.pc.addTrack(track, microphone);
    this.channel = this.pc.createDataChannel("oai-events");
    this.channel.onmessage = (event) => this.receive(event.data);
    this.channel.onclose = () => this.lose();
    this.pc.onconnectionstatechange = () => this.watch();
  }

  /**
   * Connects, with the microphone for a voice call or without one for a text conversation; rejects
   * with a CallError when the provider refuses the offer or the call does not open in time.
   */
  static async connect(
    provider: ProviderSession,
    microphone: MediaStream | undefined,
    handlers: CallHandlers,
    history: Turn[] = [],
  ): Promise<VoiceCall> {
    const call = new VoiceCall(microphone, handlers, history);
    handlers.state("connecting");
    try {
      await call.negotiate(provider);
      await call.opened();
    } catch (error) {
      call.close();
      throw error;
    }
    return call;
  }

  /** What the visitor typed, into the conversation; the model answers it as it would speech. */
  say(text: string): void {
    this.send({
      type: "conversation.item.create",
      item: { type: "message", role: "user", content: [{ type: "input_text", text }] },
    });
    this.send({ type: "response.create" });
  }

  /** Mutes or unmutes the microphone; the call goes on. */
  mute(muted: boolean): void {
    for (const track of this.microphone?.getAudioTracks() ?? []) track.enabled = !muted;
  }

  /** Hangs up; nothing is reported after it. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.graceTimer);
    this.channel.close();
    this.pc.close();
    this.audio.srcObject = null;
  }

  private async negotiate(provider: ProviderSession): Promise<void> {
    const offer = await this.pc.createOffer();
    await this.pc.setLocalDescription(offer);
    let response: Response;
    try {
      response = await fetch(provider.provider.connect_url, {
        method: "POST",
        body: offer.sdp ?? "",
        credentials: "omit",
        headers: {
          Authorization: `Bearer ${provider.ephemeral_token.value}`,
          "Content-Type": "application/sdp",
        },
      });
    } catch {
      throw new CallError(0);
    }
    if (!response.ok) throw new CallError(response.status);
    this.callId = response.headers.get("Location")?.split("/").pop() || undefined;
    await this.pc.setRemoteDescription({ type: "answer", sdp: await response.text() });
  }

  /** Resolves once the data channel is open; a CallError after CONNECT_TIMEOUT_MS. */
  private opened(): Promise<void> {
    if (this.channel.readyState === "open") return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new CallError(-1)), CONNECT_TIMEOUT_MS);
      this.channel.addEventListener("open", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private send(event: Record<string, unknown>): void {
    if (this.channel.readyState === "open") this.channel.send(JSON.stringify(event));
  }

  private receive(data: unknown): void {
    if (this.closed || typeof data !== "string") return;
    let event: ServerEvent;
    try {
      event = JSON.parse(data) as ServerEvent;
    } catch {
      return;
    }
    const at = new Date().toISOString();
    switch (event.type) {
      case "session.created":
        this.remind();
        this.handlers.state(this.idle());
        break;
      case "response.created":
        if (this.microphone === undefined) this.handlers.state("writing");
        break;
      case "response.done":
        if (this.microphone === undefined) this.handlers.state("ready");
        break;
      case "output_audio_buffer.started":
        this.handlers.state("speaking");
        break;
      case "output_audio_buffer.stopped":
      case "output_audio_buffer.cleared":
        this.handlers.state("listening");
        break;
      case "conversation.item.input_audio_transcription.completed":
        this.said("visitor", event.transcript, at);
        break;
      case "response.output_audio_transcript.done":
      case "response.audio_transcript.done":
        this.said("assistant", event.transcript, at);
        break;
      case "response.output_text.done":
        this.said("assistant", event.text, at);
        break;
      case "response.output_item.done":
        this.functionCall(event.item as Record<string, unknown> | undefined);
        break;
      default:
        break;
    }
  }

  /** The state of a call waiting for the visitor. */
  private idle(): CallState {
    return this.microphone === undefined ? "ready" : "listening";
  }

  private said(role: "visitor" | "assistant", text: unknown, at: string): void {
    if (typeof text === "string" && text.trim() !== "") this.handlers.turn({ role, text, at });
  }

  private functionCall(item: Record<string, unknown> | undefined): void {
    if (item?.type !== "function_call") return;
    const { call_id: callId, name } = item;
    if (typeof callId !== "string" || typeof name !== "string" || this.handled.has(callId)) return;
    this.handled.add(callId);
    let args: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(
        typeof item.arguments === "string" ? item.arguments : "{}",
      );
      if (parsed !== null && typeof parsed === "object") args = parsed as Record<string, unknown>;
    } catch {
      // The model's malformed arguments reach the function as none; it answers with an error.
    }
    void this.handlers
      .functionCall({ call_id: callId, name, arguments: args })
      .catch((error: unknown) => ({ error: String((error as Error)?.message ?? error) }))
      .then((output) => {
        this.send({
          type: "conversation.item.create",
          item: { type: "function_call_output", call_id: callId, output: JSON.stringify(output) },
        });
        this.send({ type: "response.create" });
      });
  }

  /** A resumed conversation's last turns, as text the model reads before the visitor goes on. */
  private remind(): void {
    for (const turn of this.history.slice(-HISTORY_TURNS)) {
      if (turn.role === "function" || turn.text === undefined) continue;
      const assistant = turn.role === "assistant";
      this.send({
        type: "conversation.item.create",
        item: {
          type: "message",
          role: assistant ? "assistant" : "user",
          content: [{ type: assistant ? "output_text" : "input_text", text: turn.text }],
        },
      });
    }
  }

  private watch(): void {
    const state = this.pc.connectionState;
    clearTimeout(this.graceTimer);
    if (state === "failed" || state === "closed") this.lose();
    else if (state === "disconnected") {
      this.graceTimer = setTimeout(() => this.lose(), DISCONNECTED_GRACE_MS);
    }
  }

  private lose(): void {
    if (this.closed) return;
    this.close();
    this.handlers.lost();
  }
}
