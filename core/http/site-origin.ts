/**
 * The Origin check and CORS of the widget endpoints: a request whose Origin is one of the site's
 * (see core/widget/origin.ts) is answered with that origin echoed, never `*`; any other is 403.
 */
import type { Request, Response } from "express";
import { errors } from "../errors.ts";
import { allowedOrigins } from "../widget/origin.ts";

type SiteDomains = { domain: string; additional_domains?: string[] };

/**
 * The origins of each site object, made once: the site cache hands out one object per site
 * version, so a new version is a new key, and an entry goes when its site object does.
 */
const originsOf = new WeakMap<SiteDomains, Set<string>>();

function originsFor(site: SiteDomains): Set<string> {
  let origins = originsOf.get(site);
  if (origins === undefined) {
    origins = allowedOrigins(site);
    originsOf.set(site, origins);
  }
  return origins;
}

/**
 * The request's Origin when it is one of the site's; else 403 origin_not_allowed. On success the
 * origin is echoed for CORS (never `*`), with `Vary: Origin` so caches keep sites apart.
 */
export function requireOrigin(
  req: Request,
  res: Response,
  site: SiteDomains,
  options: { readableRefusal?: boolean } = {},
): string {
  const origin = req.headers.origin ?? sameOrigin(req);
  res.vary("Origin");
  if (typeof origin !== "string" || !originsFor(site).has(origin.toLowerCase())) {
    // The widget's first call: its refusal is readable by the page that made it, so the widget
    // can tell the site's owner why it stays hidden. It holds nothing of the site.
    if (options.readableRefusal === true && typeof origin === "string") {
      res.setHeader("Access-Control-Allow-Origin", origin);
    }
    throw errors.originNotAllowed(typeof origin === "string" ? origin : undefined);
  }
  res.setHeader("Access-Control-Allow-Origin", origin);
  // A page reads only safelisted headers unless told: the widget needs to know when to retry.
  res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  return origin;
}

const EXPOSED_HEADERS = "Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset";

/**
 * A browser sends no Origin on a same-origin GET (the demo page served by this service reading
 * its site's config). It does send `Sec-Fetch-Site`, which page scripts cannot set: for a
 * same-origin request the origin is this service's own, as the request reached it.
 */
function sameOrigin(req: Request): string | undefined {
  if (req.headers["sec-fetch-site"] !== "same-origin") return undefined;
  const host = req.get("host");
  return host === undefined ? undefined : `${req.protocol}://${host}`;
}

/** The answer to a CORS preflight from an allowed origin. */
export function answerPreflight(res: Response, methods: string) {
  res.setHeader("Access-Control-Allow-Methods", methods);
  res.setHeader(
    "Access-Control-Allow-Headers",
    "Content-Type, X-Service-Signature, X-Service-Session",
  );
  res.setHeader("Access-Control-Max-Age", "600");
  res.status(204).end();
}
