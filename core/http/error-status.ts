/**
 * What an error code means in HTTP: its status, and the headers some errors carry (Retry-After
 * and RateLimit-* for a rate limit, Retry-After for a crawl not finished, Allow for a method a
 * path does not take). The domain throws ServiceErrors by code; only the HTTP layer turns them
 * into statuses.
 */
import type { ErrorCode, ServiceError } from "../errors.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";

export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_params: 400,
  unauthorized: 401,
  invalid_signature: 401,
  invalid_token: 401,
  forbidden: 403,
  origin_not_allowed: 403,
  not_found: 404,
  site_not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  adapter_error: 422,
  headers_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  crawler_unavailable: 503,
  adapter_timeout: 504,
} as const satisfies Record<ErrorCode, number>;

/** The HTTP status an error is answered with. */
export const httpStatus = (error: ServiceError): number => ERROR_STATUS[error.code];

/** The response headers an error carries, from its details. */
export function errorHeaders(error: ServiceError): Record<string, string> {
  const { retry_after_seconds: retryAfter, limit, allow } = error.details;
  if (error.code === "rate_limited" && typeof retryAfter === "number") {
    const state =
      typeof limit === "number" ? { limit, remaining: 0, resetSeconds: retryAfter } : undefined;
    return { "Retry-After": String(retryAfter), ...(state && rateLimitHeaders(state)) };
  }
  if (
    (error.code === "crawler_unavailable" || error.code === "service_unavailable") &&
    typeof retryAfter === "number"
  ) {
    return { "Retry-After": String(retryAfter) };
  }
  if (error.code === "method_not_allowed" && Array.isArray(allow)) {
    return { Allow: allow.join(", ") };
  }
  return {};
}
