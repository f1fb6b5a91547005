/**
 * The rules every hop of a guarded request obeys, shared by the guarded fetch and the guarded
 * plain request: which URLs may be asked for at all, which redirects are followed, and what a
 * hop sends: the caller's credentials only to the first URL's exact origin.
 */
import { OutboundBlockedError } from "./outbound-policy.ts";

export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** URL's own error keeps the input on the error object, where a logger would find it. */
export function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new TypeError("fetch failed: the URL is not a valid absolute URL");
  }
}

/** Scheme and credentials; returns the URL so calls can chain. */
export function checkUrl(url: URL): URL {
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
export const portOf = (url: URL): number =>
  url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);

/** Whether an answer is a redirect to follow: a redirect status with a Location. */
export const isRedirect = (status: number, location: string | null | undefined): boolean =>
  REDIRECT_STATUSES.has(status) && typeof location === "string";

/** One request of a guarded call: the first, or the next hop of a redirect. */
export interface Hop<Body> {
  url: URL;
  method: string;
  /** Lower-case names (outgoingHeaders). */
  headers: Record<string, string>;
  body: Body | undefined;
}

/**
 * The hop a redirect answer to `hop` leads to: its URL checked (another host, a downgrade to
 * plain http, too many redirects are refusals), a GET without body where fetch makes one
 * (becomesGet), and, once it leaves `origin` (the first URL's), without the caller's credentials
 * (leaveOrigin). Changes `hop.headers`: what is dropped stays dropped for every later hop.
 */
export function followRedirect<Body>(
  hop: Hop<Body>,
  answer: { status: number; location: string },
  redirects: number,
  maxRedirects: number,
  origin: URL,
): Hop<Body> {
  const url = redirectTarget(hop.url, answer.location, redirects, maxRedirects, origin.hostname);
  let { method, body } = hop;
  if (becomesGet(answer.status, method)) {
    method = "GET";
    body = undefined;
    dropBodyHeaders(hop.headers);
  }
  if (url.origin !== origin.origin) leaveOrigin(hop.headers, body !== undefined, origin, url);
  return { url, method, headers: hop.headers, body };
}

/** The next hop's URL: checked, or a refusal (see checkRedirect). */
function redirectTarget(
  from: URL,
  location: string,
  redirects: number,
  maxRedirects: number,
  originalHost: string,
): URL {
  if (redirects >= maxRedirects) {
    throw new OutboundBlockedError(originalHost, `it redirected more than ${maxRedirects} times`);
  }
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new TypeError("fetch failed", {
      cause: new Error(`${originalHost} redirected to an invalid URL`),
    });
  }
  checkUrl(next);
  checkRedirect(from, next, originalHost);
  return next;
}

/**
 * The headers a hop to another origin still carries: none of them can hold a credential. Every
 * other header of the caller's is dropped, since the guard cannot tell an API key's header
 * (`X-Api-Key`, any name an adapter's config gives it) from a harmless custom one.
 */
const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "user-agent",
]);

/**
 * Credentials go to the first URL's exact origin (scheme, host and port) only: another port of
 * the same host may be another service, and another scheme another server. A hop leaving it
 * drops every header but CROSS_ORIGIN_HEADERS, and one that would resend a body (a 307 or 308
 * after a POST) is refused: the body may be a secret itself, as an OAuth token request's client
 * secret is.
 */
function leaveOrigin(headers: Record<string, string>, hasBody: boolean, origin: URL, to: URL) {
  if (hasBody) {
    throw new OutboundBlockedError(
      origin.hostname,
      `it redirected a request with a body to another origin (${to.origin})`,
    );
  }
  for (const name of Object.keys(headers)) {
    if (!CROSS_ORIGIN_HEADERS.has(name)) delete headers[name];
  }
}

/** As fetch does: 303, and 301/302 after a POST, become a GET without a body. */
const becomesGet = (status: number, method: string): boolean =>
  (status === 303 && method !== "HEAD") ||
  ((status === 301 || status === 302) && method === "POST");

/**
 * The headers a hop sends, from the caller's (lower-case names): no Host (the host connected to
 * is the URL's, checked; a Host header must not say otherwise), and this service's defaults for
 * what the caller left out. Changes and returns `headers`.
 */
export function outgoingHeaders(headers: Record<string, string>): Record<string, string> {
  delete headers["host"];
  headers["accept"] ??= "*/*";
  headers["user-agent"] ??= "sitevoice";
  headers["accept-encoding"] ??= "gzip, deflate, br";
  return headers;
}

/** A redirect that became a GET (becomesGet) sends no body, so none of its content-* headers. */
function dropBodyHeaders(headers: Record<string, string>): void {
  for (const name of Object.keys(headers)) {
    if (name.startsWith("content-")) delete headers[name];
  }
}

/**
 * Same host name only; https → http would put the request on the wire in clear. (Another port or
 * an http → https upgrade is followed, without credentials: leaveOrigin.)
 */
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
