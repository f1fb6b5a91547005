/**
 * How the benchmarks sign a widget call as the widget does: the session's HMAC-SHA256 over the
 * raw body, keyed by its signing secret, sent with the session's id and the site's Origin.
 */
import crypto from "node:crypto";
import type { BenchSite } from "./query-work.ts";
import type { WrkRequest } from "./wrk.ts";

/** The `X-Service-Signature` of `body` for a session whose signing secret is `secret`. */
export const signature = (secret: string, body: string | Buffer): string =>
  `sha256=${crypto.createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex")}`;

/** A signed JSON POST of `body` to `path` in the session of `site`. */
export function signedPost(site: BenchSite, path: string, body: string): WrkRequest {
  return {
    method: "POST",
    path,
    headers: {
      Origin: site.origin,
      "Content-Type": "application/json",
      "X-Service-Session": site.sessionId,
      "X-Service-Signature": signature(site.secret, body),
    },
    body,
  };
}
