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
 *   the same host name (an http → https upgrade is fine, a downgrade or another host is refused);
 * - the caller's credentials go to the first URL's exact origin (scheme, host and port) only: a
 *   hop to another port or scheme carries none of the caller's headers but Accept,
 *   Accept-Encoding, Accept-Language and User-Agent, and one that would resend a body is refused.
 *
 * The HTTP client is undici's own `fetch` (the one Node bundles as the global fetch, here from the
 * `undici` package, which lets a request name its dispatcher): it encodes the request, decodes
 * Content-Encoding and streams the body exactly as the global fetch does. What the guard adds is
 * its dispatcher, an undici Agent whose connector (guarded-connector.ts) applies the policy to
 * every new connection, with the port the allow-list may name, and `redirect: "manual"`, so that
 * each redirect comes back here to be checked before it is followed. The Agent keeps connections
 * alive per origin: a new one resolves its name once; a reused one does no DNS work at all.
 * Being the platform's fetch, it also does what that does beyond plain HTTP: a 407 answer is a
 * network failure, a 421 is retried once on a new connection (which the connector checks again).
 */
import { Agent, fetch as undiciFetch } from "undici";
import { guardedConnector } from "./guarded-connector.ts";
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
import { OutboundBlockedError, type OutboundPolicy } from "./outbound-policy.ts";

export interface GuardedFetchOptions {
  /** Where requests may go; the service passes the policy of its settings. */
  policy: OutboundPolicy;
  /** Redirects followed before the request is refused; 5 when left out. */
  maxRedirects?: number;
  /**
   * A connection idle this long (connecting, waiting for the head, between body chunks) is closed
   * and the request fails; 300 s when left out, as fetch does.
   */
  idleTimeoutMs?: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** A fetch with the connections it keeps alive, which `close` ends. */
export type GuardedFetch = typeof fetch & { close(): Promise<void> };

/**
 * The undici Agent every guarded request goes through: its connector applies the policy to each
 * new connection; keep-alive saves a handshake per search, and a pooled connection stays tied to
 * its checked address.
 */
export function guardedAgent(options: GuardedFetchOptions): Agent {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  return new Agent({
    connect: guardedConnector(options.policy, { timeout: idleTimeoutMs }),
    headersTimeout: idleTimeoutMs,
    bodyTimeout: idleTimeoutMs,
  });
}

/**
 * A `typeof fetch` that refuses what the guard forbids (see the header comment). Refusals reject
 * with OutboundBlockedError; network failures with `TypeError("fetch failed")` and the cause, as
 * the global fetch does; an abort with the signal's reason. `close()` ends its kept-alive
 * connections (whoever made it calls it at shutdown). With `dispatcher`, it shares that Agent
 * (made by guardedAgent) instead of making its own, and `close()` leaves it open.
 */
export function guardedFetch(options: GuardedFetchOptions, dispatcher?: Agent): GuardedFetch {
  const { policy } = options;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const agent = dispatcher ?? guardedAgent(options);

  const guarded = async function guarded(
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> {
    // The URL is checked before `new Request`, whose own errors would quote it, credentials too.
    const origin = checkUrl(parseUrl(input instanceof Request ? input.url : String(input)));
    const request = input instanceof Request ? new Request(input, init) : new Request(origin, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const redirectMode = init?.redirect ?? (input instanceof Request ? input.redirect : "follow");
    let hop: Hop<Uint8Array> = {
      url: origin,
      method: request.method,
      headers: outgoingHeaders(headerRecord(request.headers)),
      body: request.body === null ? undefined : new Uint8Array(await request.arrayBuffer()),
    };

    for (let redirects = 0; ; redirects++) {
      const { url } = hop;
      policy.checkLiteral(url.hostname, portOf(url));
      const response = await send(agent, hop, signal);
      setResponseUrl(response, url, redirects > 0);
      const location = response.headers.get("location");
      if (!isRedirect(response.status, location) || redirectMode === "manual") return response;
      await response.body?.cancel().catch(() => undefined);
      if (redirectMode === "error") {
        throw new TypeError("fetch failed", {
          cause: new Error(`${origin.hostname} redirected and redirect mode is "error"`),
        });
      }
      const status = response.status;
      hop = followRedirect(hop, { status, location: location! }, redirects, maxRedirects, origin);
    }
  };
  const close = dispatcher === undefined ? () => agent.close() : () => Promise.resolve();
  return Object.assign(guarded, { close });
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/**
 * One HTTP exchange through undici's fetch on the guard's dispatcher, redirects handed back:
 * resolves once the head arrives; the body streams afterwards.
 */
async function send(
  dispatcher: Agent,
  hop: Hop<Uint8Array>,
  signal: AbortSignal | null | undefined,
): Promise<Response> {
  // undici hands a keep-alive connection back to its pool one event-loop turn after its answer
  // ended (so that a server closing it anyway is noticed first); a request sent sooner, as a caller
  // reading answers one after another does, would open a second connection and resolve the name
  // again. Waiting for the same turn lets it reuse the first.
  await new Promise<void>((resolve) => setImmediate(resolve));
  try {
    const { url, method, headers, body } = hop;
    const response = await undiciFetch(url, {
      method,
      headers,
      body,
      signal,
      redirect: "manual",
      dispatcher,
    });
    // undici's Response is the global fetch's class from a newer release of the same code.
    return response as unknown as Response;
  } catch (error) {
    // A refusal by the connector or its lookup comes back as undici's network failure; it is the
    // guard's own answer, and callers tell it apart by its class and code.
    if (error instanceof TypeError && error.cause instanceof OutboundBlockedError) {
      throw error.cause;
    }
    throw error;
  }
}

/** `url` and `redirected` are read-only on Response; fetch's callers still expect them. */
function setResponseUrl(response: Response, url: URL, redirected: boolean): void {
  Object.defineProperty(response, "url", { value: url.href });
  Object.defineProperty(response, "redirected", { value: redirected });
}
