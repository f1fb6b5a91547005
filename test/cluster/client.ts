/**
 * An HTTP client that retries what a real client retries: a connection refused or reset, and a
 * 502 or 503 (HAProxy with a server gone or none ready, an instance whose database is away),
 * sending the very same bytes and headers again (a signed write keeps its replay key). Anything
 * else is the answer. Every answer that is not what the caller expected, after its retries, is
 * recorded as a client-visible failure of the phase it happened in.
 */
import { signBody } from "../helpers/widget-signature.ts";

/** The fields of answers' `data` this suite reads (each route answers some of them). */
export interface Data {
  id: string;
  ids: string[];
  lead_id: string;
  session_id: string;
  signing_secret: string;
  user_fingerprint: string;
  request_id: string;
  crawl_id: string;
}

export interface Meta {
  version: number;
}

export interface Answer {
  status: number;
  /** The parsed envelope (or undefined when the body was not JSON). */
  body:
    | { success?: boolean; data?: Data; error?: { code: string; message: string }; meta?: Meta }
    | undefined;
  attempts: number;
  /** The last network error, when no answer ever came. */
  error?: string;
}

export interface Failure {
  phase: string;
  op: string;
  status: number;
  code?: string;
  message: string;
  attempts: number;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as is: the same string on every attempt. */
  body?: string;
  /** Which final statuses are success for this call; 2xx by default. */
  ok?: (status: number) => boolean;
  /** How long to keep retrying; 40 s by default (a database restart, HAProxy's checks). */
  retryForMs?: number;
  /** Per attempt; 20 s by default (a slow backend answers 504 after 10 s). */
  timeoutMs?: number;
}

const RETRYABLE = new Set([502, 503]);

export class Client {
  /** The phase failures are filed under (the fault under way). */
  phase = "setup";
  readonly failures: Failure[] = [];
  /** Retries made, per phase: what the faults cost clients (reported, not asserted). */
  readonly retries = new Map<string, number>();

  async call(op: string, url: string, options: CallOptions = {}): Promise<Answer> {
    const deadline = Date.now() + (options.retryForMs ?? 40_000);
    const ok = options.ok ?? ((s: number) => s >= 200 && s < 300);
    let attempts = 0;
    let last: Answer = { status: 0, body: undefined, attempts: 0 };
    for (;;) {
      attempts++;
      last = await attempt(url, options, attempts);
      const retryable = last.status === 0 || RETRYABLE.has(last.status);
      if (!retryable || Date.now() > deadline) break;
      this.retries.set(this.phase, (this.retries.get(this.phase) ?? 0) + 1);
      await pause(Math.min(1_000, 100 * attempts));
    }
    if (!ok(last.status)) {
      this.failures.push({
        phase: this.phase,
        op,
        status: last.status,
        code: last.body?.error?.code,
        message: last.error ?? last.body?.error?.message ?? "",
        attempts,
      });
    }
    return last;
  }

  json(op: string, url: string, method: string, payload: unknown, options: CallOptions = {}) {
    return this.call(op, url, {
      ...options,
      method,
      body: JSON.stringify(payload),
      headers: { "Content-Type": "application/json", ...options.headers },
    });
  }
}

async function attempt(url: string, options: CallOptions, attempts: number): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method: options.method ?? "GET",
      headers: options.headers,
      body: options.body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    });
    const text = await res.text();
    let body: Answer["body"];
    try {
      body = JSON.parse(text) as Answer["body"];
    } catch {
      body = undefined;
    }
    return { status: res.status, body, attempts };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      status: 0,
      body: undefined,
      attempts,
      error: `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}`,
    };
  }
}

/** A widget session as the token answered it, with what its signed calls carry. */
export interface Visitor {
  siteId: string;
  origin: string;
  sessionId: string;
  secret: string;
  fingerprint: string;
  /** The address it sends from (X-Forwarded-For, read behind TRUSTED_PROXIES). */
  ip: string;
}

/**
 * A widget session: the token request through `api` (`…/v1`) for the site from `ip`, as a
 * visitor with what its signed calls carry; undefined when it was refused.
 */
export async function openSession(
  client: Client,
  api: string,
  site: { siteId: string; origin: string },
  ip: string,
  payload: Record<string, unknown> = {},
): Promise<Visitor | undefined> {
  const answer = await client.json("token", `${api}/${site.siteId}/token`, "POST", payload, {
    headers: { Origin: site.origin, "X-Forwarded-For": ip },
  });
  const data = answer.body?.data;
  if (answer.status !== 200 || data === undefined) return undefined;
  return {
    siteId: site.siteId,
    origin: site.origin,
    sessionId: data.session_id,
    secret: data.signing_secret,
    fingerprint: data.user_fingerprint,
    ip,
  };
}

/** A signed widget POST: the body signed once, the same bytes and signature on every retry. */
export async function signedPost(
  client: Client,
  op: string,
  base: string,
  visitor: Visitor,
  path: string,
  payload: unknown,
  options: CallOptions = {},
): Promise<Answer> {
  const body = JSON.stringify(payload);
  return client.call(op, `${base}/v1/${visitor.siteId}${path}`, {
    ...options,
    method: "POST",
    body,
    headers: {
      Origin: visitor.origin,
      "Content-Type": "application/json",
      "X-Forwarded-For": visitor.ip,
      "X-Service-Session": visitor.sessionId,
      "X-Service-Signature": await signBody(visitor.secret, body),
    },
  });
}

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
