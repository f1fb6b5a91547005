/**
 * One GET of the crawler: through the guarded request (the SSRF guard checks every connection),
 * with our user agent, a timeout per request and a cap on the body, and redirects followed here
 * rather than by the guard, hop by hop, only within the site's origin (and only to URLs robots.txt
 * and the site's page patterns let us fetch), at most 5 hops. A redirect that leaves the origin is
 * never followed, wherever it points, so a site cannot send the crawler to a private address or
 * to another site through its own pages; the guard would still refuse the first, by address.
 */
import type { GuardedRequest, OutboundResponse } from "../../security/guarded-request.ts";
import { pageUrl } from "./crawl-urls.ts";

export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Why one URL was not read: recorded in the crawl's errors with its reason. */
export class CrawlFetchError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`${url}: ${reason}`);
    this.name = "CrawlFetchError";
  }
}

export interface OriginFetchOptions {
  request: GuardedRequest;
  origin: string;
  userAgent: string;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** Whether a redirect target may be fetched (robots.txt, page patterns); its reason when not. */
  mayFollow?: (url: string) => string | undefined;
  /** Called before every request (the Crawl-delay). */
  beforeRequest?: () => Promise<void>;
  /** Called after every request made, answered or not. */
  counted?: () => void;
  /**
   * The validators of what is known of a URL: sent as If-None-Match / If-Modified-Since on the
   * request for it (each hop its own), so an unchanged page answers 304.
   */
  validatorsOf?: (url: string) => Validators | undefined;
}

/** A page's validators, as its last answer gave them. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** The answer of `url` after same-origin redirects; the last hop's URL is `response.url`. */
export async function originFetch(
  url: string,
  options: OriginFetchOptions,
): Promise<OutboundResponse> {
  const visited = new Set<string>([url]);
  let current = url;
  for (let hops = 0; ; hops++) {
    await options.beforeRequest?.();
    options.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    let response: OutboundResponse;
    try {
      response = await options.request(current, {
        headers: {
          "user-agent": options.userAgent,
          accept: "text/html,application/xml;q=0.9,*/*;q=0.8",
          ...conditionalHeaders(options.validatorsOf?.(current)),
        },
        redirect: "manual",
        maxBytes: options.maxBytes,
        signal: options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]),
      });
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      if (timeout.aborted) {
        throw new CrawlFetchError(current, `no answer within ${options.timeoutMs} ms`);
      }
      throw error;
    } finally {
      options.counted?.();
    }
    const location = header(response, "location");
    if (!REDIRECTS.has(response.status) || location === undefined) return response;
    const next = pageUrl(location, current, options.origin);
    if (next === undefined) {
      throw new CrawlFetchError(
        url,
        `redirected off the site to ${safeUrl(location, current)}; not followed`,
      );
    }
    if (visited.has(next)) throw new CrawlFetchError(url, `redirect loop at ${next}`);
    if (hops >= MAX_REDIRECTS) {
      throw new CrawlFetchError(url, `more than ${MAX_REDIRECTS} redirects`);
    }
    const refused = options.mayFollow?.(next);
    if (refused !== undefined) {
      throw new CrawlFetchError(url, `redirected to ${next}, ${refused}; not followed`);
    }
    visited.add(next);
    current = next;
  }
}

/** If-None-Match and If-Modified-Since of the validators there are. */
function conditionalHeaders(validators: Validators | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (validators?.etag != null) headers["if-none-match"] = validators.etag;
  if (validators?.lastModified != null) headers["if-modified-since"] = validators.lastModified;
  return headers;
}

/** One header's value (the first when repeated). */
export function header(response: OutboundResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Every value of a header that may be repeated, in order. */
export function headerValues(response: OutboundResponse, name: string): string[] {
  const value = response.headers[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A Location for a message: resolved, without credentials; as given when it is no URL. */
function safeUrl(location: string, base: string): string {
  try {
    const url = new URL(location, base);
    url.username = "";
    url.password = "";
    return url.href;
  } catch {
    return JSON.stringify(location.slice(0, 200));
  }
}
