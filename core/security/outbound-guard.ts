/**
 * The SSRF guard: a `fetch` for every request the service makes on a customer's behalf (REST
 * adapter, crawler, webhooks, OAuth). Customers choose those URLs, so without it a site config
 * could make the service read its own admin ports, the cloud metadata endpoint or anything else on
 * the private network and hand the answer back to the visitor or the site owner.
 *
 * What it enforces, on every hop:
 * - only http: and https: URLs, without credentials in them;
 * - the address connected to is public: an IP literal is classified as it is; a host name is
 *   resolved (every address, IPv4 and IPv6) and refused when ANY answer is not public. The check
 *   runs inside the socket's own `lookup`, so the address checked is the address connected to:
 *   there is no second resolution a DNS-rebinding server could answer differently;
 * - redirects are followed by hand, at most `maxRedirects`, each hop checked again, and only to
 *   the same host name (an http → https upgrade is fine, a downgrade or another host is refused).
 *
 * `allowPrivateNetworks` (SITEVOICE_ALLOW_PRIVATE_NETWORKS, for development and tests) lifts the
 * address rule except for the cloud metadata addresses, which no backend legitimately lives on.
 *
 * It is built on node:http(s) rather than the global fetch: the global fetch (bundled undici)
 * takes no custom resolver without the `undici` package, which is not a dependency here. The
 * result still behaves as `fetch` does for the callers: a Request/URL/string and RequestInit in,
 * a WHATWG Response with a streamed body out, `signal` aborting the connection itself.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import ipaddr from "ipaddr.js";

/** A request the guard refused to make. The message names the host, never credentials or paths. */
export class OutboundBlockedError extends Error {
  readonly code = "OUTBOUND_BLOCKED";

  constructor(
    /** The host name (or IP literal) of the refused request. */
    readonly host: string,
    /** Why, in words that complete "outbound request to <host> refused: …". */
    readonly reason: string,
  ) {
    super(`outbound request to ${host} refused: ${reason}`);
    this.name = "OutboundBlockedError";
  }
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface GuardedFetchOptions {
  /** Lets requests reach private, loopback, link-local … addresses (never cloud metadata ones). */
  allowPrivateNetworks: boolean;
  /** Redirects followed before the request is refused; 5 when left out. */
  maxRedirects?: number;
  /**
   * Every address of a host name; `dns.lookup` with `all: true` when left out. Tests give names
   * an address without touching the system resolver.
   */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** A socket idle this long (no bytes either way) is closed; 300 s when left out, as fetch does. */
  idleTimeoutMs?: number;
}

export const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
const ALLOW_HINT = "private networks are not allowed (SITEVOICE_ALLOW_PRIVATE_NETWORKS is off)";

/**
 * Instance metadata services hand out cloud credentials: AWS/GCP/Azure/OpenStack
 * (169.254.169.254), AWS ECS task credentials (169.254.170.2), Alibaba (100.100.100.200) and the
 * AWS IPv6 endpoint. Refused even when private networks are allowed.
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "100.100.100.200",
  "fd00:ec2::254",
]);

/** Readable names of ipaddr.js ranges, for messages. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT (shared)",
  private: "private",
  uniqueLocal: "unique-local",
  reserved: "reserved",
  benchmarking: "benchmarking",
};

/**
 * What an address is: `public` for globally routed unicast, `metadata` for a cloud metadata
 * endpoint, else the special range it falls in (loopback, private, link-local, …). IPv4-mapped
 * and NAT64 IPv6 addresses are judged by the IPv4 address they carry. Throws on a non-address.
 */
export function addressRange(address: string): string {
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    v6.zoneId = undefined;
    if (METADATA_ADDRESSES.has(v6.toNormalizedString()) || METADATA_ADDRESSES.has(v6.toString())) {
      return "metadata";
    }
    if (v6.isIPv4MappedAddress()) {
      ip = v6.toIPv4Address();
    } else if (v6.range() === "rfc6052") {
      // NAT64 (64:ff9b::/96): a gateway turns it into the IPv4 address in its last 32 bits.
      ip = ipaddr.IPv4.parse(v6.toByteArray().slice(12).join("."));
    }
  }
  if (ip.kind() === "ipv4" && METADATA_ADDRESSES.has(ip.toString())) return "metadata";
  const range = ip.range();
  return range === "unicast" ? "public" : range;
}

/**
 * Why a connection to `address` is refused, or undefined when it is allowed: only public
 * addresses, unless private networks are allowed; metadata addresses never.
 */
export function addressRefusal(
  address: string,
  options: { allowPrivateNetworks: boolean },
): string | undefined {
  const range = addressRange(address);
  if (range === "metadata") return "a cloud metadata address, which is never allowed";
  if (range === "public" || options.allowPrivateNetworks) return undefined;
  return `a ${RANGE_NAMES[range] ?? `special-purpose (${range})`} address`;
}

/** Whether `address` is a public (globally routed unicast) address. */
export const isPublicAddress = (address: string): boolean => addressRange(address) === "public";

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

const systemResolve = async (hostname: string): Promise<ResolvedAddress[]> =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * A `typeof fetch` that refuses what the guard forbids (see the header comment). Refusals reject
 * with OutboundBlockedError; network failures with `TypeError("fetch failed")` and the cause, as
 * the global fetch does; an abort with the signal's reason.
 */
export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  const allowPrivateNetworks = options.allowPrivateNetworks;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const resolve = options.resolve ?? systemResolve;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;

  /**
   * The sockets' resolver: resolves once, checks every answer, and hands the socket exactly the
   * checked addresses. Node calls it only for names; IP literals are checked before connecting.
   */
  const lookup = (hostname: string, lookupOptions: dns.LookupOptions, callback: LookupCallback) => {
    checkedAddresses(hostname, lookupOptions.family).then(
      (usable) => {
        const first = usable[0] as ResolvedAddress;
        if (lookupOptions.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, ""),
    );
  };
  const checkedAddresses = async (hostname: string, family: unknown) => {
    const answers = await resolve(hostname);
    for (const { address } of answers) {
      const refusal = addressRefusal(address, { allowPrivateNetworks });
      // The address itself is not named: it would map the service's internal DNS for whoever
      // controls the host name.
      if (refusal !== undefined) {
        const hint = refusal.includes("never") ? "" : `, and ${ALLOW_HINT}`;
        throw new OutboundBlockedError(hostname, `it resolves to ${refusal}${hint}`);
      }
    }
    const usable =
      family === 4 || family === 6 ? answers.filter((a) => a.family === family) : answers;
    if (usable.length === 0) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: "ENOTFOUND",
        hostname,
      });
    }
    return usable;
  };
  // Keep-alive saves a handshake per search; a pooled socket stays tied to its checked address.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, lookup }),
    "https:": new https.Agent({ keepAlive: true, lookup }),
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
      checkLiteral(url, allowPrivateNetworks);
      const response = await send({ url, method, headers, body, signal, agents, idleTimeoutMs });
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

/** URL.hostname keeps the brackets of an IPv6 literal; sockets and classification do not. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

/** IP literals never reach the socket's `lookup`, so they are judged here. */
function checkLiteral(url: URL, allowPrivateNetworks: boolean): void {
  const host = bareHost(url);
  if (net.isIP(host) === 0) return;
  const refusal = addressRefusal(host, { allowPrivateNetworks });
  if (refusal === undefined) return;
  const hint = refusal.includes("never") ? "" : `, and ${ALLOW_HINT}`;
  throw new OutboundBlockedError(url.hostname, `${host} is ${refusal}${hint}`);
}

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
      hostname: bareHost(url),
      port: url.port === "" ? undefined : Number(url.port),
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
