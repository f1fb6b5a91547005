/**
 * One delivery attempt over HTTP: a POST of the signed body through the outbound guard (so an
 * endpoint whose name now resolves to a private or metadata address is refused), never following
 * a redirect. Success is a 2xx answer within the time limit; anything else is a failure with what
 * the log should say: the status, or the error in words (never a secret: no header is echoed).
 */
import { performance } from "node:perf_hooks";
import type { GuardedRequest } from "../security/guarded-request.ts";
import { outboundRefusal } from "../security/outbound-policy.ts";
import { retryAfterMs } from "./retry-schedule.ts";

/** The receiver must answer within this (the API reference, "Limits"). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The start of an answer kept in the attempt log. */
export const RESPONSE_BODY_KEPT = 2_048;

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** Why it failed, when no status says it (or a redirect, which is never followed). */
  error: string | null;
  latencyMs: number;
  responseBody: string | null;
  /** A 429's or 503's Retry-After, in ms. */
  retryAfterMs?: number;
  /** The receiver answered 410 Gone: the endpoint is disabled at once. */
  gone: boolean;
}

export async function sendAttempt(
  request: GuardedRequest,
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  options: { timeoutMs?: number; now: () => number },
): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const answer = await request(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "accept-encoding": "identity" },
      body,
      redirect: "manual",
      maxBytes: RESPONSE_BODY_KEPT,
      truncate: true,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const status = answer.status;
    const ok = status >= 200 && status < 300;
    const location = answer.headers.location;
    const redirect =
      status >= 300 && status < 400
        ? `redirect to ${String(Array.isArray(location) ? location[0] : (location ?? "nowhere"))} not followed`
        : null;
    const waitMs =
      status === 429 || status === 503
        ? retryAfterMs(answer.headers["retry-after"], options.now())
        : undefined;
    return {
      ok,
      statusCode: status,
      error: redirect,
      latencyMs: latency(),
      responseBody: answer.body.length === 0 ? null : answer.body.toString("utf8"),
      ...(waitMs === undefined ? {} : { retryAfterMs: waitMs }),
      gone: status === 410,
    };
  } catch (error) {
    return {
      ok: false,
      statusCode: null,
      error: describeFailure(error, timeoutMs),
      latencyMs: latency(),
      responseBody: null,
      gone: false,
    };
  }
}

/** A failed request in words for the attempt log (at most 500 characters). */
function describeFailure(error: unknown, timeoutMs: number): string {
  const refused = outboundRefusal(error);
  if (refused !== undefined) return refused.message.slice(0, 500);
  const name = (error as { name?: string }).name;
  if (name === "TimeoutError" || name === "AbortError") {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  const code =
    (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  const text = error instanceof Error ? error.message : String(error);
  return (code !== undefined && !text.includes(code) ? `${code}: ${text}` : text).slice(0, 500);
}
