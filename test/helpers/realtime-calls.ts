/**
 * The stand-in's `POST /v1/realtime/calls`, OpenAI's WebRTC calls endpoint (GA Realtime API,
 * "Realtime API with WebRTC"): the browser posts its SDP offer (`Content-Type: application/sdp`)
 * with `Authorization: Bearer <ephemeral key>`, and gets `201 Created`, the SDP answer as
 * `application/sdp` and `Location: /v1/realtime/calls/rtc_…`. Errors use OpenAI's body `{error:
 * {message, type, param, code}}`: 401 for a missing, unknown or expired key, 400 for another
 * content type, and 400 `invalid_offer` for a body that is not an SDP offer, or an offer without
 * an audio section: OpenAI refuses a data channel alone ("Invalid SDP offer. Offer did not have an
 * audio media section.", code `invalid_offer`, as reported in
 * https://community.openai.com/t/can-webrtc-be-used-for-a-real-time-text-to-text-chatbot-instead-of-websockets/1136482),
 * so a text-only page offers audio receive-only, which needs no microphone; 503 while
 * `behaviour` is "fail".
 *
 * Stricter than OpenAI, which also takes a standard key here: only an `ek_` key this stand-in
 * minted is accepted, as the widget must never hold a standard key. Browsers call it cross-origin,
 * so it answers CORS preflights and exposes `Location`.
 */
import { randomBytes } from "node:crypto";
import type http from "node:http";
import { bearerToken, incorrectKey, openAiError, type OpenAiErrorBody } from "./openai-errors.ts";
import { RealtimeCall, type RealtimeEvent } from "./realtime-call.ts";
import { answerOffer, NotAnOffer, type RealtimePeer } from "./realtime-peer.ts";

export const CALLS_PATH = "/v1/realtime/calls";

/** A client secret as minted by the stand-in's client_secrets route. */
export interface MintedSecret {
  value: string;
  /** Unix seconds. */
  expires_at: number;
  session: RealtimeEvent;
}

/** `answer`: as OpenAI does. `fail`: 503, as when OpenAI is overloaded. */
export type CallsBehaviour = "answer" | "fail";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Location",
};
const PREFLIGHT = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST",
  "access-control-allow-headers": "authorization, content-type",
  "access-control-max-age": "600",
};

export class RealtimeCalls {
  /** Every call answered, oldest first. */
  readonly calls: RealtimeCall[] = [];
  /** What the next offers meet. */
  behaviour: CallsBehaviour = "answer";
  readonly #secret: (value: string) => MintedSecret | undefined;
  readonly #now: () => number;
  #taken = 0;
  #waiting: ((call: RealtimeCall) => void)[] = [];
  #closing = false;

  /**
   * @param secret The minted secret of that value, if the stand-in minted one.
   * @param now Milliseconds since the epoch, to tell an expired secret.
   */
  constructor(secret: (value: string) => MintedSecret | undefined, now: () => number) {
    this.#secret = secret;
    this.#now = now;
  }

  /** The first call not yet taken by `nextCall`, answered already or to come. */
  nextCall(timeoutMs = 10_000): Promise<RealtimeCall> {
    const answered = this.calls[this.#taken];
    if (answered !== undefined) {
      this.#taken++;
      return Promise.resolve(answered);
    }
    return new Promise((resolve, reject) => {
      const take = (call: RealtimeCall) => (clearTimeout(timer), resolve(call));
      const timer = setTimeout(() => {
        this.#waiting = this.#waiting.filter((waiting) => waiting !== take);
        reject(new Error(`no call within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.push(take);
    });
  }

  /** Answers a request to CALLS_PATH, whatever its method. */
  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method === "OPTIONS") {
      res.writeHead(204, PREFLIGHT).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      this.#answer(req, Buffer.concat(chunks).toString("utf8")).then(
        ([status, body, headers]) => send(res, status, body, headers),
        (error: Error) => send(res, 500, openAiError(error.message, { type: "server_error" })),
      );
    });
  }

  /** The call `id`, answered here, if there is one. */
  get(id: string): RealtimeCall | undefined {
    return this.calls.find((call) => call.id === id);
  }

  /**
   * A call without a browser: as if a WebRTC call with `session` were answered and its events
   * channel open, for tests that drive it from the server side only (its events go nowhere else).
   */
  virtual(session: RealtimeEvent): RealtimeCall {
    const call = new RealtimeCall(`rtc_${randomBytes(12).toString("hex")}`, "", session, noPeer());
    this.#add(call);
    return call;
  }

  /** Ends every call and waits until their native resources are freed. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const call of this.calls) call.hangUp();
    await Promise.all(this.calls.map((call) => call.closed));
  }

  async #answer(
    req: http.IncomingMessage,
    offer: string,
  ): Promise<[number, string | OpenAiErrorBody, Record<string, string>?]> {
    if (req.method !== "POST")
      return [404, openAiError(`Invalid URL (${req.method} ${CALLS_PATH})`)];
    if (this.behaviour === "fail") {
      const message = "The server is overloaded or not ready yet.";
      return [503, openAiError(message, { type: "server_error" })];
    }
    const token = bearerToken(req.headers.authorization);
    if (typeof token !== "string") return [401, token];
    const secret = this.#secret(token);
    if (secret === undefined) return [401, incorrectKey(token)];
    if (secret.expires_at * 1000 <= this.#now()) {
      return [401, openAiError("The client secret has expired.", { code: "invalid_api_key" })];
    }
    const contentType = req.headers["content-type"] ?? "";
    if (!/^application\/sdp\b/i.test(contentType)) {
      const message = `Invalid Content-Type header (${contentType || "none"}), expected application/sdp.`;
      return [400, openAiError(message)];
    }
    try {
      const peer = await answerOffer(offer);
      const call = new RealtimeCall(
        `rtc_${randomBytes(12).toString("hex")}`,
        token,
        secret.session,
        peer,
      );
      this.#add(call);
      return [201, peer.answer, { location: `${CALLS_PATH}/${call.id}` }];
    } catch (error) {
      if (error instanceof NotAnOffer) {
        return [400, openAiError(error.message, { code: "invalid_offer" })];
      }
      throw error;
    }
  }

  #add(call: RealtimeCall): void {
    this.calls.push(call);
    // A call answered while the stand-in closes would outlive it.
    if (this.#closing) call.hangUp();
    const waiting = this.#waiting.shift();
    if (waiting === undefined) return;
    this.#taken++;
    waiting(call);
  }
}

function send(
  res: http.ServerResponse,
  status: number,
  body: string | OpenAiErrorBody,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    ...CORS,
    ...headers,
    "content-type": typeof body === "string" ? "application/sdp" : "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** A peer that is open at once and drops what is sent: the browser of a virtual call. */
function noPeer(): RealtimePeer {
  let end!: () => void;
  const closed = new Promise<void>((resolve) => (end = resolve));
  return {
    answer: "",
    opened: Promise.resolve(),
    closed,
    onMessage: () => undefined,
    send: () => true,
    audioPacketsSent: () => 0,
    audioPacketsReceived: () => 0,
    close: () => end(),
  };
}
