/**
 * Which browser origins may call a site's widget endpoints (DECISIONS.md): `https://` plus the
 * domain or an additional domain, exactly (host and port); `http://` too only for a localhost or
 * 127.0.0.1 domain, for local development. Anything else, `null` included, is 403.
 */
import type { Request, Response } from "express";
import { errors } from "../errors.ts";

const LOCAL = /^(localhost|127\.0\.0\.1)(:\d{1,5})?$/;

export function allowedOrigins(site: {
  domain: string;
  additional_domains?: string[];
}): Set<string> {
  const origins = new Set<string>();
  for (const host of [site.domain, ...(site.additional_domains ?? [])]) {
    const lower = host.toLowerCase();
    origins.add(`https://${lower}`);
    if (LOCAL.test(lower)) origins.add(`http://${lower}`);
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
  site: { domain: string; additional_domains?: string[] },
): string {
  const origin = req.headers.origin;
  res.vary("Origin");
  if (typeof origin !== "string" || !allowedOrigins(site).has(origin.toLowerCase())) {
    throw errors.originNotAllowed(typeof origin === "string" ? origin : undefined);
  }
  res.setHeader("Access-Control-Allow-Origin", origin);
  return origin;
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
