/**
 * OpenAI's server-side control of a WebRTC call ("sideband", the Realtime guide's "Webhooks and
 * server-side controls"): a WebSocket to `{baseUrl}/v1/realtime?call_id=…` authenticated with the
 * standard key, carrying the call's server events and taking client events, and
 * `POST {baseUrl}/v1/realtime/calls/{call_id}/hangup`.
 *
 * It reports each `session.created` and `session.updated` (the session's instructions and tools)
 * and the `usage` of each `response.done`, and sends `session.update` when told. The socket is
 * opened on the host's guarded socket (`context.socket`), TLS on top for `wss:`, so it passes the
 * outbound policy as `context.fetch` does; redirects are never followed (they would carry the
 * key elsewhere).
 */
import net from "node:net";
import tls from "node:tls";
import { WebSocket } from "ws";
import { CallEnded } from "sitevoice";
import type {
  CallControl,
  CallEvents,
  ControlledSession,
  PluginContext,
  ResponseUsage,
  TokenCounts,
  VoiceTool,
} from "sitevoice";

/** A session's events are small; far more is not OpenAI answering. */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export interface CallControlSettings {
  apiKey: string;
  /** `https://api.openai.com` or the configured base URL, without a trailing slash. */
  baseUrl: string;
  /** The model the service mints sessions of, for usage whose session names none. */
  model: string;
  timeoutMs: number;
  context: PluginContext;
}

export async function controlOpenAiCall(
  callId: string,
  events: CallEvents,
  settings: CallControlSettings,
  signal: AbortSignal,
): Promise<CallControl> {
  const url = new URL(`${settings.baseUrl}/v1/realtime`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("call_id", callId);
  const secure = url.protocol === "wss:";
  const socket = new WebSocket(url, {
    headers: { authorization: `Bearer ${settings.apiKey}` },
    handshakeTimeout: settings.timeoutMs,
    maxPayload: MAX_MESSAGE_BYTES,
    followRedirects: false,
    perMessageDeflate: false,
    // ws hands the request's options (host, port) to this, as http.request does.
    createConnection: ((options: { host?: string; port?: number | string }) => {
      const host = String(options.host);
      const raw = settings.context.socket();
      raw.connect(Number(options.port), host);
      return secure ? tls.connect({ socket: raw, servername: net.isIP(host) ? "" : host }) : raw;
    }) as unknown as typeof net.createConnection,
  });
  // Listened for before the connection opens: OpenAI sends session.created at once, and it may
  // come in the same read as the upgrade's answer, emitted before a later listener would be on.
  let model = settings.model;
  socket.on("message", (data, isBinary) => {
    if (isBinary) return;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(String(data)) as Record<string, unknown>;
    } catch {
      settings.context.logger.warn({ call_id: callId }, "OpenAI sent a message that is not JSON");
      return;
    }
    if (event.type === "session.created" || event.type === "session.updated") {
      const session = (event.session ?? {}) as Record<string, unknown>;
      if (typeof session.model === "string") model = session.model;
      events.session(sessionOf(session));
    } else if (event.type === "response.done") {
      const usage = usageOf(event.response, model);
      if (usage !== undefined) events.usage(usage);
    } else if (event.type === "error") {
      const error = event.error as { message?: unknown } | undefined;
      settings.context.logger.warn(
        { call_id: callId, message: error?.message },
        "OpenAI refused an event on a controlled call",
      );
    }
  });
  await opened(socket, callId, signal);
  // A connection that closed between opening and here was never ours to report as closed.
  if (socket.readyState !== WebSocket.OPEN) {
    throw new Error(`the control connection of call ${callId} closed as it opened`);
  }
  socket.on("error", () => undefined); // "close" follows and reports it
  socket.once("close", (code) => events.closed(`the control connection closed (${code})`));

  return {
    async apply(session: ControlledSession) {
      const update = {
        type: "session.update",
        session: { type: "realtime", instructions: session.instructions, tools: session.tools },
      };
      await new Promise<void>((resolve, reject) =>
        socket.send(JSON.stringify(update), (error) => (error ? reject(error) : resolve())),
      );
    },
    async hangUp() {
      const response = await settings.context.fetch(
        `${settings.baseUrl}/v1/realtime/calls/${encodeURIComponent(callId)}/hangup`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${settings.apiKey}` },
          redirect: "error",
          signal: AbortSignal.timeout(settings.timeoutMs),
        },
      );
      await response.arrayBuffer().catch(() => undefined);
      // 404: the call ended already.
      if (!response.ok && response.status !== 404) {
        throw new Error(`OpenAI answered ${response.status} to the hang-up`);
      }
      socket.close(1000);
    },
    close() {
      socket.close(1000);
    },
  };
}

/** Resolves once the socket is open; a 404 or 410 on the handshake means the call is over. */
function opened(socket: WebSocket, callId: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      socket.terminate();
      reject(new Error("joining the call was cancelled"));
    };
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    const done = () => signal.removeEventListener("abort", abort);
    socket.once("open", () => (done(), resolve()));
    socket.once("unexpected-response", (_request, response) => {
      done();
      const status = response.statusCode ?? 0;
      response.resume();
      socket.terminate();
      reject(
        status === 404 || status === 410
          ? new CallEnded(`OpenAI has no call ${callId} (${status})`)
          : new Error(`OpenAI answered ${status} to joining the call`),
      );
    });
    socket.once("error", (error) => (done(), reject(error)));
  });
}

/** The instructions and function tools of a session as OpenAI sends it. */
function sessionOf(session: Record<string, unknown>): ControlledSession {
  const tools = Array.isArray(session.tools) ? (session.tools as VoiceTool[]) : [];
  return {
    instructions: typeof session.instructions === "string" ? session.instructions : "",
    tools: tools.filter((tool) => tool?.type === "function"),
  };
}

/**
 * A response's `usage` (GA Realtime API): the cached tokens are counted among the input tokens,
 * so each modality's uncached input is its tokens less its cached ones.
 */
export function usageOf(response: unknown, model: string): ResponseUsage | undefined {
  const { id, usage } = (response ?? {}) as { id?: unknown; usage?: Record<string, unknown> };
  if (typeof id !== "string" || usage === undefined || usage === null) return undefined;
  const input = (usage.input_token_details ?? {}) as Record<string, unknown>;
  const cached = (input.cached_tokens_details ?? {}) as Record<string, unknown>;
  const output = (usage.output_token_details ?? {}) as Record<string, unknown>;
  const count = (from: Record<string, unknown>, key: string) => {
    const value = from[key];
    return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
  };
  const cachedCounts: TokenCounts = {
    text: count(cached, "text_tokens"),
    audio: count(cached, "audio_tokens"),
    image: count(cached, "image_tokens"),
  };
  return {
    response_id: id,
    model,
    input: {
      text: Math.max(0, count(input, "text_tokens") - cachedCounts.text),
      audio: Math.max(0, count(input, "audio_tokens") - cachedCounts.audio),
      image: Math.max(0, count(input, "image_tokens") - cachedCounts.image),
    },
    cached: cachedCounts,
    output: { text: count(output, "text_tokens"), audio: count(output, "audio_tokens") },
  };
}
