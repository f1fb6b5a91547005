/**
 * The guarded plain request: the SSRF guard's rules (outbound-hops.ts, and the guarded Agent's
 * connector on every connection) without the WHATWG layer. The guarded fetch builds a Request,
 * Headers, a Response and a web stream for every call; on a search that is most of the cost of
 * reaching the backend. This asks undici's `dispatcher.request` directly and answers the whole
 * body as one Buffer, read up to a cap: what an adapter that reads JSON needs, and no more.
 *
 * Like the guarded fetch it follows same-host redirects by hand (each hop checked again; the
 * caller's credentials only within the first URL's origin), sends no Host header of the caller's, asks for gzip, deflate or br and decodes them (the cap applies
 * to the encoded and to the decoded body, so a small compressed answer cannot expand without
 * limit). A network failure rejects with undici's error, a refusal with OutboundBlockedError, an
 * abort with the signal's reason.
 */
import http from "node:http";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { Agent, Dispatcher } from "undici";
import {
  checkUrl,
  DEFAULT_MAX_REDIRECTS,
  followRedirect,
  isRedirect,
  outgoingHeaders,
  parseUrl,
  portOf,
  type Hop,
} from "./outbound-hops.ts";
import type { OutboundPolicy } from "./outbound-policy.ts";

/** The body read when the caller names no cap. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface OutboundRequestOptions {
  /** GET when left out. */
  method?: string;
  /** Lower-case names are not required; a Host header is dropped. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /**
   * The most of the body read, encoded or decoded; more rejects with ResponseTooLargeError. 0
   * reads none: the answer comes back at its head, with an empty body.
   */
  maxBytes?: number;
  /**
   * With `maxBytes`: an answer longer than the cap is cut there rather than refused (a cut
   * encoded body comes back as received, not decoded). For keeping the start of an answer.
   */
  truncate?: boolean;
  /**
   * `follow` (the default): same-host redirects, those leaving the first URL's origin without the
   * caller's headers but Accept, Accept-Encoding, Accept-Language and User-Agent; `manual`: the
   * redirect is the answer.
   */
  redirect?: "follow" | "manual";
}

export interface OutboundResponse {
  status: number;
  /** The reason phrase the server sent, or the standard one. */
  statusText: string;
  /** Lower-case names, as node:http gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The whole body, decoded. */
  body: Buffer;
  /** The URL of the last hop. */
  url: string;
  redirected: boolean;
}

/** A guarded request: see the header comment. */
export type GuardedRequest = (
  url: string | URL,
  options?: OutboundRequestOptions,
) => Promise<OutboundResponse>;

/** An answer longer than the caller's cap; the rest of it was not read. */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly host: string,
    readonly limit: number,
  ) {
    super(`the answer of ${host} is larger than ${limit} bytes`);
    this.name = "ResponseTooLargeError";
  }
}

const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);

const DECODERS: Record<string, (input: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  "x-gzip": promisify(zlib.gunzip),
  // As fetch does: zlib-wrapped deflate, or the raw deflate some servers send under that name.
  deflate: (input, options) =>
    inflate(input, options).catch((error: unknown) => {
      if ((error as { code?: string }).code !== "Z_DATA_ERROR") throw error;
      return inflateRaw(input, options);
    }),
  br: promisify(zlib.brotliDecompress) as (i: Buffer, o: zlib.ZlibOptions) => Promise<Buffer>,
};

/** A guarded request over `agent` (made by guardedAgent, whose connector checks connections). */
export function guardedRequest(
  agent: Agent,
  options: { policy: OutboundPolicy; maxRedirects?: number },
): GuardedRequest {
  const { policy } = options;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  return async (target, init = {}) => {
    const origin = checkUrl(typeof target === "string" ? parseUrl(target) : target);
    const maxBytes = init.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    let hop: Hop<string | Uint8Array> = {
      url: origin,
      method: init.method ?? "GET",
      headers: outgoingHeaders(lowerCased(init.headers)),
      body: init.body,
    };
    for (let redirects = 0; ; redirects++) {
      const { url, method } = hop;
      policy.checkLiteral(url.hostname, portOf(url));
      // undici hands a kept-alive connection back to its pool one event-loop turn after its answer
      // ended; a request sent sooner (the next hop of a redirect, a caller's next request) would
      // open a second connection and resolve the name again. As the guarded fetch does.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const answer = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: hop.headers,
        body: hop.body,
        signal: init.signal,
      });
      const location = single(answer.headers.location);
      if (init.redirect !== "manual" && isRedirect(answer.statusCode, location)) {
        await answer.body.dump().catch(() => undefined);
        const status = answer.statusCode;
        hop = followRedirect(hop, { status, location: location! }, redirects, maxRedirects, origin);
        continue;
      }
      return {
        status: answer.statusCode,
        statusText: answer.statusText || http.STATUS_CODES[answer.statusCode] || "",
        headers: answer.headers,
        body: await readBody(
          answer,
          url.host,
          hasNoBody(answer.statusCode, method) ? 0 : maxBytes,
          init.truncate === true,
        ),
        url: url.href,
        redirected: redirects > 0,
      };
    }
  };
}

/** The caller's headers with lower-case names, in a record of the request's own. */
function lowerCased(given: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) headers[name.toLowerCase()] = value;
  return headers;
}

/** HEAD, 1xx, 204 and 304 answers have no body, whatever a Content-Length says. */
const hasNoBody = (status: number, method: string): boolean =>
  method === "HEAD" || status < 200 || status === 204 || status === 304;

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/**
 * The bytes of `stream`, or past `maxBytes` ResponseTooLargeError, or with `truncate` the first
 * `maxBytes` (the stream is destroyed, the rest not read). Read with `data` events: an async
 * iterator costs more per answer.
 */
function readCapped(
  stream: Readable,
  host: string,
  maxBytes: number,
  truncate: boolean,
): Promise<{ body: Buffer; cut: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    stream.on("data", (chunk: Buffer) => {
      if (length + chunk.length <= maxBytes) {
        length += chunk.length;
        chunks.push(chunk);
        return;
      }
      stream.destroy();
      if (!truncate) {
        reject(new ResponseTooLargeError(host, maxBytes));
        return;
      }
      chunks.push(chunk.subarray(0, maxBytes - length));
      resolve({ body: Buffer.concat(chunks, maxBytes), cut: true });
    });
    stream.once("error", reject);
    stream.once("end", () =>
      resolve({
        body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length),
        cut: false,
      }),
    );
  });
}

/** The body, decoded, or ResponseTooLargeError past `maxBytes` (the rest is not read). */
async function readBody(
  answer: Dispatcher.ResponseData,
  host: string,
  maxBytes: number,
  truncate: boolean,
): Promise<Buffer> {
  if (maxBytes === 0) {
    await answer.body.dump().catch(() => undefined);
    return Buffer.alloc(0);
  }
  const read = await readCapped(answer.body, host, maxBytes, truncate);
  let body = read.body;
  if (read.cut) return body;
  const encodings = (single(answer.headers["content-encoding"]) ?? "")
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "" && e !== "identity");
  // Applied in the order given, so undone in reverse.
  for (const encoding of encodings.reverse()) {
    const decode = DECODERS[encoding];
    if (decode === undefined) break;
    try {
      body = await decode(body, { maxOutputLength: maxBytes });
    } catch (error) {
      // Cut rather than refused: what was received, as received.
      if (truncate) return read.body;
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
        throw new ResponseTooLargeError(host, maxBytes);
      }
      throw error;
    }
  }
  return body;
}
