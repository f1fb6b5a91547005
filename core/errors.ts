/**
 * The one registry of error codes. Every error the service answers with is made here, by the
 * domain as much as by the HTTP layer; the domain knows codes and meanings only, and
 * `core/http/error-status.ts` maps each code to its HTTP status and headers (so jobs and the
 * crawler throw the same errors without Express). A test keeps the registry, the statuses and the
 * error table of docs/api/errors.md equal.
 */

export type ErrorDetails = Record<string, unknown>;

/** How long a client is asked to wait before retrying while the database is away. */
const STORE_RETRY_AFTER_SECONDS = 1;

export const errorCodes = {
  invalid_request: {
    meaning: "Body or parameters failed validation; details names the field",
  },
  invalid_params: { meaning: "Analytics reads: bad date format or unknown type" },
  unauthorized: { meaning: "Missing, malformed or revoked API key or session" },
  invalid_signature: {
    meaning: "Widget HMAC mismatch, wrong or expired signing secret",
  },
  invalid_token: { meaning: "Magic-link or lead token used, expired or unknown" },
  forbidden: {
    meaning:
      "Key valid but lacks the scope, or is limited to other sites; a download link changed or expired",
  },
  origin_not_allowed: {
    meaning: "Origin is not the site's domain or additional domains",
  },
  not_found: { meaning: "Resource does not exist or belongs to another workspace" },
  site_not_found: { meaning: "Unknown site_id on a widget or analytics endpoint" },
  method_not_allowed: {
    meaning: "The path exists but not with this method; Allow lists the methods it takes",
  },
  not_acceptable: {
    meaning: "The Accept header names no type the endpoint answers with",
  },
  conflict: { meaning: "Duplicate id, or a concurrent change won the race" },
  payload_too_large: {
    meaning: "Body over 64 KiB (widget endpoints) or 1 MiB (others)",
  },
  unsupported_media_type: {
    meaning: "Body in a Content-Encoding or charset the service does not read",
  },
  validation_failed: {
    meaning: "Business-rule rejection (plan limit, plain-http baseUrl, …)",
  },
  adapter_error: {
    meaning: "The data adapter failed; details.error holds its message",
  },
  rate_limited: { meaning: "Over a rate limit; wait Retry-After seconds" },
  headers_too_large: {
    meaning: "Request line and headers over the HTTP server's limit (16 KiB by default)",
  },
  internal_error: { meaning: "Server fault" },
  service_unavailable: { meaning: "Transient; retry with backoff" },
  crawler_unavailable: { meaning: "First crawl still running; retry in 30 s" },
  adapter_timeout: { meaning: "The data backend was slower than 10 seconds" },
} as const satisfies Record<string, { meaning: string }>;

export type ErrorCode = keyof typeof errorCodes;

/**
 * An error that leaves the service as an envelope. `message` is for the caller; `cause` is the
 * internal reason, logged and never sent.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetails; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ServiceError";
    this.code = code;
    this.details = options.details ?? {};
  }
}

export const isServiceError = (value: unknown): value is ServiceError =>
  value instanceof ServiceError;

/** Factories, one per code, so call sites read as what happened. */
export const errors = {
  invalidRequest: (message: string, details: ErrorDetails = {}) =>
    new ServiceError("invalid_request", message, { details }),
  invalidParams: (message: string, details: ErrorDetails = {}) =>
    new ServiceError("invalid_params", message, { details }),
  unauthorized: (message = "A valid API key is required") =>
    new ServiceError("unauthorized", message),
  forbidden: (message: string, details: ErrorDetails = {}) =>
    new ServiceError("forbidden", message, { details }),
  notFound: (what: string, id?: string) =>
    new ServiceError(
      "not_found",
      id === undefined ? `${what} not found` : `${what} '${id}' not found`,
      {
        details: id === undefined ? {} : { id },
      },
    ),
  invalidSignature: () =>
    new ServiceError(
      "invalid_signature",
      "The request signature does not match an open session of this site",
    ),
  originNotAllowed: (origin: string | undefined) =>
    new ServiceError(
      "origin_not_allowed",
      origin === undefined
        ? "The Origin header is required"
        : `Origin ${origin} is not one of this site's domains`,
      { details: { origin: origin ?? null } },
    ),
  invalidToken: (message = "The token is unknown, used or expired") =>
    new ServiceError("invalid_token", message),
  siteNotFound: (siteId: string) =>
    new ServiceError("site_not_found", `No site with site_id '${siteId}'`, {
      details: { site_id: siteId },
    }),
  routeNotFound: (method: string, path: string) =>
    new ServiceError("not_found", `No route for ${method} ${path}`, { details: { method, path } }),
  /** A path that exists, asked with a method none of its routes takes; `allow` are those they do. */
  methodNotAllowed: (method: string, path: string, allow: string[]) =>
    new ServiceError("method_not_allowed", `${method} is not allowed on ${path}`, {
      details: { method, path, allow },
    }),
  notAcceptable: (message: string, details: ErrorDetails = {}) =>
    new ServiceError("not_acceptable", message, { details }),
  conflict: (message: string, details: ErrorDetails = {}) =>
    new ServiceError("conflict", message, { details }),
  payloadTooLarge: (limitBytes: number) =>
    new ServiceError("payload_too_large", `Request body is larger than ${limitBytes} bytes`, {
      details: { limit_bytes: limitBytes },
    }),
  unsupportedMediaType: (message: string, details: ErrorDetails = {}) =>
    new ServiceError("unsupported_media_type", message, { details }),
  headersTooLarge: (limitBytes: number) =>
    new ServiceError(
      "headers_too_large",
      `The request line and headers are larger than ${limitBytes} bytes`,
      { details: { limit_bytes: limitBytes } },
    ),
  validationFailed: (message: string, details: ErrorDetails = {}) =>
    new ServiceError("validation_failed", message, { details }),
  rateLimited: (retryAfterSeconds: number, details: ErrorDetails = {}) =>
    new ServiceError("rate_limited", `Rate limit exceeded; retry in ${retryAfterSeconds} s`, {
      details: { retry_after_seconds: retryAfterSeconds, ...details },
    }),
  adapterError: (message: string, details: ErrorDetails = {}) =>
    new ServiceError("adapter_error", `The data adapter failed: ${message}`, {
      details: { error: message, ...details },
    }),
  adapterTimeout: (timeoutMs: number) =>
    new ServiceError(
      "adapter_timeout",
      `The data backend did not answer within ${timeoutMs / 1000} seconds`,
      { details: { timeout_ms: timeoutMs } },
    ),
  internal: (cause: unknown) =>
    new ServiceError("internal_error", "Internal server error", { cause }),
  serviceUnavailable: (message: string, cause?: unknown) =>
    new ServiceError("service_unavailable", message, { cause }),
  /** The database cannot be reached for now (restarting, down, out of connections). */
  storeUnavailable: (cause: unknown) =>
    new ServiceError("service_unavailable", "The database is not reachable; retry in a moment", {
      cause,
      details: { retry_after_seconds: STORE_RETRY_AFTER_SECONDS },
    }),
  /** The site's first crawl has not finished: what needs its pages cannot answer yet. */
  crawlerUnavailable: (retryAfterSeconds: number) =>
    new ServiceError(
      "crawler_unavailable",
      `The site's first crawl has not finished; retry in ${retryAfterSeconds} s`,
      { details: { retry_after_seconds: retryAfterSeconds } },
    ),
};
