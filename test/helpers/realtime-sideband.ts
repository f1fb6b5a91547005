/**
 * The stand-in's server-side control of WebRTC calls, as OpenAI's Realtime guide ("Webhooks and
 * server-side controls") describes it: a WebSocket at `/v1/realtime?call_id=rtc_…`, opened with
 * the standard key (`Authorization: Bearer sk-…`), on which the call's server events arrive and
 * client events (`session.update`, …) are taken as the browser's are; and `POST
 * /v1/realtime/calls/{call_id}/hangup` with the standard key, which ends the call (`200 {}`).
 *
 * A handshake without the standard key is 401 with OpenAI's error body, a call it never answered
 * or one that ended 404. When a call ends, its control connections close (1000). `joins` records
 * every connection that was accepted, for tests to count; `drop` cuts a call's connections as a
 * network failure would.
 */
import type http from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import {
  bearerToken,
  incorrectKey,
  json,
  openAiError,
  type OpenAiErrorBody,
} from "./openai-errors.ts";
import type { RealtimeCalls } from "./realtime-calls.ts";

export const SIDEBAND_PATH = "/v1/realtime";
const HANGUP_PATH = /^\/v1\/realtime\/calls\/([^/]+)\/hangup$/;

export interface SidebandJoin {
  callId: string;
  at: number;
  /** Whether the connection is still open. */
  open: boolean;
}

export class RealtimeSideband {
  /** Every control connection accepted, oldest first. */
  readonly joins: SidebandJoin[] = [];
  /** The call ids hung up through the API, in order. */
  readonly hungUp: string[] = [];
  readonly #server = new WebSocketServer({ noServer: true });
  readonly #sockets = new Map<string, Set<WebSocket>>();

  constructor(
    private readonly calls: RealtimeCalls,
    private readonly apiKey: string,
  ) {}

  /** Whether `path` is one of the routes this answers over HTTP (the hang-up). */
  handles(path: string): boolean {
    return HANGUP_PATH.test(path);
  }

  /** Answers `POST /v1/realtime/calls/{call_id}/hangup`. */
  hangUp(req: http.IncomingMessage, res: http.ServerResponse, path: string): void {
    req.resume();
    const callId = decodeURIComponent(HANGUP_PATH.exec(path)![1]!);
    const refused = this.#refusal(req.headers.authorization);
    if (refused !== undefined) return json(res, 401, refused);
    if (req.method !== "POST") return json(res, 404, openAiError(`Invalid URL (${path})`));
    const call = this.calls.get(callId);
    if (call === undefined || call.ended) {
      return json(res, 404, openAiError(`Call ${callId} not found.`, { code: "call_not_found" }));
    }
    this.hungUp.push(callId);
    call.hangUp();
    json(res, 200, {});
  }

  /** Takes an HTTP upgrade to SIDEBAND_PATH; anything else is ended. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://standin.test");
    const callId = url.searchParams.get("call_id") ?? "";
    const refuse = (status: number, body: OpenAiErrorBody) => {
      const text = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${status} ${status === 401 ? "Unauthorized" : "Not Found"}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
          `Connection: close\r\n\r\n${text}`,
      );
    };
    if (url.pathname !== SIDEBAND_PATH) return refuse(404, openAiError("Invalid URL"));
    const refused = this.#refusal(req.headers.authorization);
    if (refused !== undefined) return refuse(401, refused);
    const call = this.calls.get(callId);
    if (call === undefined || call.ended) {
      return refuse(404, openAiError(`Call ${callId} not found.`, { code: "call_not_found" }));
    }
    this.#server.handleUpgrade(req, socket, head, (ws) => {
      const join: SidebandJoin = { callId, at: Date.now(), open: true };
      this.joins.push(join);
      const sockets = this.#sockets.get(callId) ?? new Set();
      this.#sockets.set(callId, sockets.add(ws));
      const side = {
        send: (text: string) => ws.send(text),
        close: (code: number) => ws.close(code),
      };
      call.sidebands.add(side);
      ws.on("message", (data) => call.receiveFromSideband(String(data)));
      ws.on("close", () => {
        join.open = false;
        call.sidebands.delete(side);
        sockets.delete(ws);
      });
    });
  }

  /** Cuts the call's control connections without a closing handshake (a network failure). */
  drop(callId: string): void {
    for (const ws of this.#sockets.get(callId) ?? []) ws.terminate();
  }

  /** The open control connections of a call. */
  openJoins(callId: string): number {
    return this.joins.filter((join) => join.callId === callId && join.open).length;
  }

  close(): void {
    for (const sockets of this.#sockets.values()) for (const ws of sockets) ws.terminate();
    this.#server.close();
  }

  /** OpenAI's 401 for anything but the standard key: control needs it, an `ek_` key will not do. */
  #refusal(header: string | undefined): OpenAiErrorBody | undefined {
    const token = bearerToken(header);
    if (typeof token !== "string") return token;
    return token === this.apiKey ? undefined : incorrectKey(token);
  }
}
