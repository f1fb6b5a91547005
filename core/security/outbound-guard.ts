/**
 * The SSRF guard: a `fetch` for every request the service makes on a customer's behalf (REST
 * adapter, crawler, webhooks, OAuth). Customers choose those URLs, so without it a site config
 * could make the service read its own admin ports, the cloud metadata endpoint or anything else on
 * the private network and hand the answer back to the visitor or the site owner.
 *
 * What it enforces, on every hop:
 * - only http: and https: URLs, without credentials in them;
 * - the address connected to passes the outbound policy (outbound-policy.ts): an IP literal is
 *   checked before connecting; a host name is resolved inside the socket's own `lookup`, every
 *   answer checked, so the address checked is the address connected to: there is no second
 *   resolution a DNS-rebinding server could answer differently;
 * - redirects are followed by hand, at most `maxRedirects`, each hop checked again, and only to
 *   the same host name (an http → https upgrade is fine, a downgrade or another host is refused).
 *
 * The policy's allow-list may name a port, so each request hands its socket a `lookup` that
 * knows the port; the keep-alive agents set no `lookup` of their own (an Agent's options override
 * the request's when it creates a socket). A new socket resolves once; a reused one not at all.
 *
 * It is built on node:http(s) rather than the global fetch: the global fetch (bundled undici)
 * takes no custom resolver without the `undici` package, which is not a dependency here. The
 * result still behaves as `fetch` does for the callers: a Request/URL/string and RequestInit in,
 * a WHATWG Response with a streamed body out, `signal` aborting the connection itself.
 */
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { OutboundBlockedError, bareHost, type OutboundPolicy } from "./outbound-policy.ts";

export interface GuardedFetchOptions {
  /** Where requests may go; the service passes the policy of its settings. */
  policy: OutboundPolicy;
  /** Redirects followed before the request is refused; 5 when left out. */
  maxRedirects?: number;
  /** A socket idle this long (no bytes either way) is closed; 300 s when left out, as fetch does. */
  idleTimeoutMs?: number;
}

export const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/**
 * A `typeof fetch` that refuses what the guard forbids (see the header comment). Refusals reject
 * with OutboundBlockedError; network failures with `TypeError("fetch failed")` and the cause, as
 * the global fetch does; an abort with the signal's reason.
 */
export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  const { policy } = options;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  // Keep-alive saves a handshake per search; a pooled socket stays tied to its checked address.
  // No `lookup` here: it would override each request's, which knows the port.
  const agents = {
    "http:": new http.Agent({ keepAlive: true }),
    "https:": new https.Agent({ keepAlive: true }),
  };

  return async function guarded(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    // The URL is checked before `new Request`, whose own errors would quote it, credentials too.
    let url = checkUrl(parseUrl(input instanceof Request ? input.url : String(input)));
    const request = input instanceof Request ? new Request(input, init) : new Request(url, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const redirectMode = init?.redirect ?? (input instanceof Request ? input.redirect : "follow");
    let method = request.method;
    let body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const headers = headerRecord(request.headers);
    // The host connected to is the URL's, checked above; a Host header must not say otherwise.
    delete headers["host"];
    headers["accept"] ??= "*/*";
    headers["user-agent"] ??= "sitevoice";
    headers["accept-encoding"] ??= "gzip, deflate, br";
    const originalHost = url.hostname;

    for (let redirects = 0; ; redirects++) {
      policy.checkLiteral(url.hostname, portOf(url));
      const response = await send({
        url,
        method,
        headers,
        body,
        signal,
        agents,
        idleTimeoutMs,
        policy,
      });
      setResponseUrl(response, url, redirects > 0);
      const location = response.headers.get("location");
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
      if (redirectMode === "manual") return response;
      await response.body?.cancel().catch(() => undefined);
      if (redirectMode === "error") {
        throw new TypeError("fetch failed", {
          cause: new Error(`${originalHost} redirected and redirect mode is "error"`),
        });
      }
      if (redirects >= maxRedirects) {
        throw new OutboundBlockedError(
          originalHost,
          `it redirected more than ${maxRedirects} times`,
        );
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new TypeError("fetch failed", {
          cause: new Error(`${originalHost} redirected to an invalid URL`),
        });
      }
      checkUrl(next);
      checkRedirect(url, next, originalHost);
      // As fetch does: 303, and 301/302 after a POST, become a GET without a body.
      if (
        (response.status === 303 && method !== "HEAD") ||
        ((response.status === 301 || response.status === 302) && method === "POST")
      ) {
        method = "GET";
        body = undefined;
        for (const name of Object.keys(headers)) {
          if (name.startsWith("content-")) delete headers[name];
        }
      }
      url = next;
    }
  };
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** URL's own error keeps the input on the error object, where a logger would find it. */
function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new TypeError("fetch failed: the URL is not a valid absolute URL");
  }
}

/** Scheme and credentials; returns the URL so calls can chain. */
function checkUrl(url: URL): URL {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundBlockedError(
      url.hostname || url.protocol,
      `only http: and https: URLs are allowed (got ${url.protocol})`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new OutboundBlockedError(url.hostname, "credentials in the URL are not allowed");
  }
  return url;
}

/** The port a URL connects to, its scheme's default when it names none. */
const portOf = (url: URL): number =>
  url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);

/** Same host name only; https → http would put the same credentials on the wire in clear. */
function checkRedirect(from: URL, to: URL, originalHost: string): void {
  if (to.hostname !== from.hostname) {
    throw new OutboundBlockedError(
      originalHost,
      `it redirected to another host (${to.hostname}); only same-host redirects are followed`,
    );
  }
  if (from.protocol === "https:" && to.protocol === "http:") {
    throw new OutboundBlockedError(originalHost, "it redirected from https to plain http");
  }
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  signal: AbortSignal | null | undefined;
  agents: Record<"http:" | "https:", http.Agent>;
  idleTimeoutMs: number;
  policy: OutboundPolicy;
}

const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException("This operation was aborted", "AbortError");

/** One HTTP exchange: resolves once the head arrives; the body streams afterwards. */
function send(hop: Hop): Promise<Response> {
  const { url, method, headers, body, signal } = hop;
  return new Promise<Response>((resolvePromise, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const transport = url.protocol === "https:" ? https : http;
    const request = transport.request({
      protocol: url.protocol,
      hostname: bareHost(url.hostname),
      port: portOf(url),
      // Called only when the agent opens a new socket; a reused keep-alive socket resolves nothing.
      lookup: hop.policy.lookup(portOf(url)),
      path: `${url.pathname}${url.search}`,
      method,
      headers: body === undefined ? headers : { ...headers, "content-length": body.byteLength },
      agent: hop.agents[url.protocol as "http:" | "https:"],
    });
    let incoming: http.IncomingMessage | undefined;
    const onAbort = () => {
      const reason = abortReason(signal as AbortSignal);
      // Destroying the request closes the socket: the backend sees the client go away.
      request.destroy(reason as Error);
      incoming?.destroy(reason as Error);
      reject(reason);
    };
    const cleanup = () => signal?.removeEventListener("abort", onAbort);
    signal?.addEventListener("abort", onAbort, { once: true });
    request.setTimeout(hop.idleTimeoutMs, () => {
      request.destroy(
        Object.assign(new Error(`no data for ${hop.idleTimeoutMs} ms`), { code: "ETIMEDOUT" }),
      );
    });
    request.on("error", (error) => {
      cleanup();
      if (signal?.aborted) reject(abortReason(signal));
      else if (error instanceof OutboundBlockedError) reject(error);
      else reject(new TypeError("fetch failed", { cause: error }));
    });
    request.on("response", (response) => {
      incoming = response;
      response.on("close", cleanup);
      try {
        resolvePromise(toResponse(response, method));
      } catch (error) {
        response.destroy();
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    request.end(body);
  });
}

/** The WHATWG Response of a Node response, its body decoded as fetch decodes it. */
function toResponse(incoming: http.IncomingMessage, method: string): Response {
  const status = incoming.statusCode ?? 0;
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2)
    headers.append(raw[i] as string, raw[i + 1] as string);
  let body: ReadableStream<Uint8Array> | null = null;
  if (method === "HEAD" || NULL_BODY_STATUSES.has(status)) {
    incoming.on("error", () => undefined);
    incoming.resume();
  } else {
    body = webStream(decode(incoming, headers.get("content-encoding")));
  }
  const statusText = /^[\t\x20-\x7e\x80-\xff]*$/.test(incoming.statusMessage ?? "")
    ? (incoming.statusMessage ?? "")
    : "";
  return new Response(body, { status, statusText, headers });
}

/** Undoes Content-Encoding (gzip, deflate, br, in the order applied), as fetch does. */
function decode(incoming: http.IncomingMessage, encoding: string | null): Readable {
  const codings = (encoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  let stream: Readable = incoming;
  for (const coding of codings.reverse()) {
    const decoder =
      coding === "gzip" || coding === "x-gzip"
        ? zlib.createGunzip()
        : coding === "deflate"
          ? zlib.createInflate()
          : coding === "br"
            ? zlib.createBrotliDecompress()
            : undefined;
    if (decoder === undefined) return stream;
    const source = stream;
    source.on("error", (error) => decoder.destroy(error));
    // A consumer that stops reading (cancel) must close the connection, not just the decoder.
    decoder.on("close", () => source.destroy());
    stream = source.pipe(decoder);
  }
  return stream;
}

/**
 * A byte stream over a Node stream, paused while the reader is 64 KiB behind (Readable.toWeb in
 * Node 20 counts chunks, not bytes, so it would buffer a fast backend's answer without bound).
 * Cancelling it closes the connection.
 */
function webStream(readable: Readable): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const fail = (error: unknown) => {
          if (settled) return;
          settled = true;
          controller.error(error);
        };
        readable.on("data", (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) readable.pause();
        });
        readable.on("end", () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        readable.on("error", fail);
        readable.on("close", () =>
          fail(Object.assign(new Error("the connection closed early"), { code: "ECONNRESET" })),
        );
      },
      pull() {
        readable.resume();
      },
      cancel() {
        settled = true;
        readable.destroy();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/** `url` and `redirected` are read-only on Response; fetch's callers still expect them. */
function setResponseUrl(response: Response, url: URL, redirected: boolean): void {
  Object.defineProperty(response, "url", { value: url.href });
  Object.defineProperty(response, "redirected", { value: redirected });
}
