/**
 * The OpenAI voice provider's work: minting a Realtime session's client secret, controlling a
 * call, and embedding texts, each a POST to OpenAI through the host's guarded fetch with the
 * operator's key; index.ts declares it as a plugin (its type, voices and config schema).
 */
import { readCappedBody, VoiceProviderUnavailable } from "sitevoice";
import type {
  CallControl,
  CallEvents,
  PluginContext,
  SearchOptions,
  VoiceProvider,
  VoiceSession,
  VoiceSessionRequest,
} from "sitevoice";
import { controlOpenAiCall } from "./openai-call-control.ts";
import { refusal, statusLine, unreachable } from "./openai-refusal.ts";
import {
  EMBEDDINGS_PATH,
  embeddingBatches,
  embeddingRequest,
  maxAnswerBytes,
  vectorsOf,
} from "./openai-embeddings.ts";

export interface OpenAiProviderConfig {
  /** The standard API key; without one every session fails with a message naming the setting. */
  apiKey?: string;
  /** `https://api.openai.com` when left out. */
  baseUrl?: string;
  /** `gpt-realtime` when left out. */
  model?: string;
  /** How long OpenAI may take to mint a secret. */
  timeoutMs?: number;
}

export const DEFAULT_BASE_URL = "https://api.openai.com";
export const DEFAULT_MODEL = "gpt-realtime";
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Why no session can be made without a key; it names the setting to set. */
const NO_KEY = "no OpenAI API key is configured (set OPENAI_API_KEY)";

/** A client secret with its session echo is a few kilobytes; far more is not OpenAI answering. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** How a failure's message begins, by what was asked of OpenAI. */
const SESSION_FAILED = "the voice provider failed";
const EMBEDDINGS_FAILED = "the embeddings request failed";

/** What one request reads at most, and how its failures are worded. */
interface PostOptions {
  maxBytes: number;
  failed: string;
}
const SESSION_POST: PostOptions = { maxBytes: MAX_ANSWER_BYTES, failed: SESSION_FAILED };

/** Why a request ended early, told apart from the caller's signal. */
class Timeout extends Error {}

export class OpenAiProvider implements VoiceProvider {
  readonly #apiKey: string | undefined;
  readonly #baseUrl: string;
  readonly #model: string;
  readonly #timeoutMs: number;
  readonly #context: PluginContext;

  constructor(config: OpenAiProviderConfig, context: PluginContext) {
    const baseUrl = config.baseUrl ?? DEFAULT_BASE_URL;
    try {
      new URL(baseUrl);
    } catch {
      throw new Error("config.baseUrl is not an absolute URL");
    }
    this.#apiKey = config.apiKey === "" ? undefined : config.apiKey;
    this.#baseUrl = baseUrl.replace(/\/+$/, "");
    this.#model = config.model ?? DEFAULT_MODEL;
    this.#timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#context = context;
  }

  /** Without a key no session can be made: said before anyone presses a widget's button. */
  unavailable(): string | undefined {
    return this.#apiKey === undefined ? NO_KEY : undefined;
  }

  async createSession(request: VoiceSessionRequest, options: SearchOptions): Promise<VoiceSession> {
    const apiKey = this.#apiKey;
    if (apiKey === undefined) {
      throw new VoiceProviderUnavailable(NO_KEY);
    }
    const body = {
      expires_after: { anchor: "created_at", seconds: request.expiresInSeconds },
      session: {
        type: "realtime",
        model: this.#model,
        instructions: request.instructions,
        ...sessionMode(request),
        tools: request.tools,
      },
    };
    const answer = await this.#post(
      "/v1/realtime/client_secrets",
      body,
      apiKey,
      options.signal,
      SESSION_POST,
    );
    const { value, expires_at: expiresAt } = (answer ?? {}) as Record<string, unknown>;
    if (typeof value !== "string" || value === "") {
      throw this.#failure(SESSION_FAILED, "OpenAI's answer holds no client secret (value)");
    }
    // Unix seconds; a Date out of range would make toISOString throw.
    const expiry = typeof expiresAt === "number" ? new Date(expiresAt * 1000) : undefined;
    if (expiry === undefined || Number.isNaN(expiry.getTime())) {
      throw this.#failure(SESSION_FAILED, "OpenAI's answer holds no expiry time (expires_at)");
    }
    return {
      ephemeral_token: { value, expires_at: expiry.toISOString() },
      provider: {
        name: "openai",
        model: this.#model,
        voice: request.voice,
        connect_url: `${this.#baseUrl}/v1/realtime/calls`,
      },
    };
  }

  /**
   * Joins the call from the server (openai-call-control.ts): its session's instructions and
   * tools, and the usage of each response, reach `events`.
   */
  async controlCall(
    callId: string,
    events: CallEvents,
    options: SearchOptions,
  ): Promise<CallControl> {
    const apiKey = this.#apiKey;
    if (apiKey === undefined) throw new VoiceProviderUnavailable(NO_KEY);
    return controlOpenAiCall(
      callId,
      events,
      {
        apiKey,
        baseUrl: this.#baseUrl,
        model: this.#model,
        timeoutMs: this.#timeoutMs,
        context: this.#context,
      },
      options.signal,
    );
  }

  /**
   * `text-embedding-3-small` vectors of 256 numbers, one per text in order, in requests of at
   * most 256 texts, one after another; any failure is a VoiceProviderUnavailable.
   */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const apiKey = this.#apiKey;
    if (apiKey === undefined) throw new VoiceProviderUnavailable(NO_KEY);
    const vectors: Float32Array[] = [];
    for (const batch of embeddingBatches(texts)) {
      const options = { maxBytes: maxAnswerBytes(batch.length), failed: EMBEDDINGS_FAILED };
      const body = embeddingRequest(batch);
      const answer = await this.#post(EMBEDDINGS_PATH, body, apiKey, signal ?? NEVER, options);
      const got = vectorsOf(answer, batch.length);
      if (typeof got === "string") throw this.#failure(EMBEDDINGS_FAILED, got);
      vectors.push(...got);
    }
    return vectors;
  }

  /** POSTs JSON and returns the parsed 2xx answer; any failure throws VoiceProviderUnavailable. */
  async #post(
    path: string,
    body: unknown,
    apiKey: string,
    signal: AbortSignal,
    { maxBytes, failed }: PostOptions,
  ): Promise<unknown> {
    const url = `${this.#baseUrl}${path}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Timeout()), this.#timeoutMs);
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.#context.fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify(body),
        signal: controller.signal,
        // OpenAI does not redirect; following one would carry the key somewhere else.
        redirect: "error",
      });
      const bytes = await readCappedBody(response, maxBytes);
      const text = bytes === undefined ? undefined : bytes.toString("utf8");
      if (!response.ok) throw this.#failure(failed, refusal(response, text ?? ""), response.status);
      if (text === undefined) {
        throw this.#failure(failed, `OpenAI's answer is larger than ${maxBytes / 1024} KiB`);
      }
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw this.#failure(
          failed,
          `OpenAI answered ${statusLine(response)} with a body that is not JSON`,
        );
      }
    } catch (error) {
      if (error instanceof VoiceProviderUnavailable) throw error;
      if (controller.signal.reason instanceof Timeout) {
        throw this.#failure(failed, `OpenAI did not answer within ${this.#timeoutMs} ms`);
      }
      if (signal.aborted) throw this.#failure(failed, "the request to OpenAI was cancelled");
      // The network's own code is for the operator's log; the client hears that OpenAI is down.
      const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
      this.#context.logger.warn({ code: cause?.code }, "OpenAI could not be reached");
      throw this.#failure(failed, unreachable(error, new URL(url).host));
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** The error to throw, logged for the operator (the service's 503 says no more than this). */
  #failure(failed: string, reason: string, status?: number): VoiceProviderUnavailable {
    const message = `${failed}: ${this.#redact(reason)}`;
    this.#context.logger.warn({ status }, message);
    return new VoiceProviderUnavailable(message);
  }

  /** A last guard: OpenAI or a lower layer may quote what it was sent. */
  #redact(message: string): string {
    const key = this.#apiKey;
    return key === undefined ? message : message.split(key).join("[redacted]");
  }
}

/** The model that writes down what the visitor says, for the widget's captions. */
export const TRANSCRIPTION_MODEL = "gpt-4o-mini-transcribe";

/**
 * What the session's mode sets. A voice session has its visitor's speech transcribed (off unless
 * asked for), in the site's language when it has an ISO 639-1 code, which is all OpenAI takes
 * (else OpenAI detects it). A text session answers in text only and transcribes nothing; its
 * voice is still sent, so every session names the site's voice as Sitevoice always has.
 */
function sessionMode(request: VoiceSessionRequest) {
  const output = { voice: request.voice };
  if (request.mode === "text") return { output_modalities: ["text"], audio: { output } };
  const primary = request.language.split("-")[0]!;
  const language = /^[a-z]{2}$/.test(primary) ? { language: primary } : {};
  const transcription = { model: TRANSCRIPTION_MODEL, ...language };
  return { audio: { input: { transcription }, output } };
}

/** The signal of a caller that gave none. */
const NEVER = new AbortController().signal;
