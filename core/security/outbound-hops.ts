/**
 * The rules every hop of a guarded request obeys, shared by the guarded fetch and the guarded
 * plain request: which URLs may be asked for at all, and which redirects are followed.
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

/** The next hop of a redirect: checked, or a refusal (see checkRedirect). */
export function redirectTarget(
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

/** As fetch does: 303, and 301/302 after a POST, become a GET without a body. */
export const becomesGet = (status: number, method: string): boolean =>
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
export function dropBodyHeaders(headers: Record<string, string>): void {
  for (const name of Object.keys(headers)) {
    if (name.startsWith("content-")) delete headers[name];
  }
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
