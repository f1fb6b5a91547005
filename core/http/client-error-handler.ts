/**
 * The HTTP server's `clientError`: a request Node's HTTP parser refuses before Express runs (a
 * request line and headers over the size limit, a request line that is not HTTP) gets a real
 * answer in the envelope, with a fresh request id, instead of Node's bare status line. The socket
 * is closed once the answer is out, as Node does, since the rest of what the client sends cannot
 * be read as requests any more.
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { newId } from "../store/ids.ts";
import { errorEnvelope } from "./envelope.ts";
import { httpStatus } from "./error-status.ts";
import { errors, ServiceError } from "../errors.ts";

/** What the parser reports; `code` is `HPE_…` for parse errors. */
type ClientError = Error & { code?: string };

/**
 * Node's own answer to a request that took longer than `requestTimeout`; the registry has no
 * code for it, so it keeps Node's bare status line.
 */
const REQUEST_TIMEOUT = Buffer.from(
  `HTTP/1.1 408 ${http.STATUS_CODES[408]}\r\nConnection: close\r\n\r\n`,
  "ascii",
);

/** The registry's error for a parser refusal; undefined where Node's own answer stays. */
function refusalOf(code: string | undefined): ServiceError | undefined {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return errors.headersTooLarge(http.maxHeaderSize);
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new ServiceError("payload_too_large", "The body's chunk extensions are too large");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return undefined;
    default:
      return errors.invalidRequest("The request is not valid HTTP/1.1");
  }
}

/** The whole HTTP response for `error`, written straight to the socket (there is no `res`). */
function responseFor(error: ServiceError, requestId: string): Buffer {
  const body = Buffer.from(JSON.stringify(errorEnvelope(error, requestId)), "utf8");
  const head =
    `HTTP/1.1 ${httpStatus(error)} ${http.STATUS_CODES[httpStatus(error)] ?? ""}\r\n` +
    "Content-Type: application/json; charset=utf-8\r\n" +
    `Content-Length: ${body.length}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    "Connection: close\r\n\r\n";
  return Buffer.concat([Buffer.from(head, "latin1"), body]);
}

/**
 * Whether an answer of this connection has started going out (a keep-alive client that sent a
 * broken request behind a good one): writing now would corrupt it. Node checks the same internal.
 */
const answerInFlight = (socket: Duplex) =>
  (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;

export function clientErrorHandler(logger: Logger) {
  // The parser keeps reporting while the rest of the request arrives; answer once per socket.
  const answered = new WeakSet<Duplex>();
  return (error: ClientError, socket: Duplex) => {
    if (answered.has(socket)) return;
    // Node's default: a socket that is gone or already answering gets nothing more.
    if (error.code === "ECONNRESET" || !socket.writable || answerInFlight(socket)) {
      socket.destroy(error);
      return;
    }
    answered.add(socket);
    const refusal = refusalOf(error.code);
    if (refusal === undefined) {
      socket.end(REQUEST_TIMEOUT, () => socket.destroy());
      return;
    }
    const requestId = newId("req");
    logger.info(
      { request_id: requestId, status: httpStatus(refusal), reason: error.code },
      "request refused by the HTTP parser",
    );
    socket.end(responseFor(refusal, requestId), () => socket.destroy());
  };
}
