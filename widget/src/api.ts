/**
 * The service's widget endpoints as the widget calls them: the envelope unwrapped, errors as
 * ApiError with the service's code, signed calls carrying `X-Service-Session` and
 * `X-Service-Signature: sha256=<hex HMAC-SHA256 of the body>` keyed by the session's signing
 * secret. The HMAC is computed synchronously (@noble/hashes) so a call made while the page
 * unloads is signed before the page goes. A 429 is retried as the API reference says: after
 * `Retry-After` seconds, or 1, 2, 4, 8 seconds (capped at 30) without it, 5 attempts at most.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type {
  CrawledPage,
  Mode,
  ProviderSession,
  SigningAnswer,
  TokenAnswer,
  VisitorAnswer,
  WidgetConfig,
} from "./types.ts";

const MAX_ATTEMPTS = 5;
const MAX_DELAY_S = 30;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What signs a call: the session's id and secret. */
export interface Signer {
  session_id: string;
  signing_secret: string;
}

export interface CallOptions {
  /** Sent with `keepalive`, so it completes after the page is gone (it is then not retried). */
  unloading?: boolean;
}

export class Api {
  constructor(
    private readonly base: string,
    private readonly siteId: string,
    private readonly sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  config(): Promise<WidgetConfig> {
    return this.call("GET", "config");
  }

  async pages(): Promise<CrawledPage[]> {
    const answer = await this.call<{ site?: { pages?: CrawledPage[] } }>(
      "GET",
      "site-intelligence",
    );
    return answer.site?.pages ?? [];
  }

  /** The visitor's own fingerprint: what they quote to ask the business for their data. */
  async visitor(): Promise<string> {
    return (await this.call<VisitorAnswer>("GET", "visitor")).user_fingerprint;
  }

  /** A session and its provider token, for a voice call or a text conversation. */
  token(pageUrl: string, mode: Mode): Promise<TokenAnswer> {
    return this.call("POST", "token", { page_url: pageUrl, mode });
  }

  /** A session without a provider, to sign a callback request from the panel's form. */
  callbackSession(pageUrl: string): Promise<SigningAnswer> {
    return this.call("POST", "token", { page_url: pageUrl, mode: "callback" });
  }

  /** A new provider token for a session that goes on (after a refresh or a lost connection). */
  resume(signer: Signer, pageUrl: string, mode: Mode): Promise<ProviderSession> {
    return this.signed(signer, "session/resume", { page_url: pageUrl, mode });
  }

  signed<T>(signer: Signer, path: string, body: unknown, options: CallOptions = {}): Promise<T> {
    const text = JSON.stringify(body);
    const signature = bytesToHex(
      hmac(sha256, utf8ToBytes(signer.signing_secret), utf8ToBytes(text)),
    );
    return this.call("POST", path, text, options, {
      "X-Service-Session": signer.session_id,
      "X-Service-Signature": `sha256=${signature}`,
    });
  }

  private async call<T>(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    options: CallOptions = {},
    headers: Record<string, string> = {},
  ): Promise<T> {
    const url = `${this.base}/v1/${encodeURIComponent(this.siteId)}/${path}`;
    const init: RequestInit = {
      method,
      credentials: "omit",
      keepalive: options.unloading === true,
    };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "Content-Type": "application/json", ...headers };
    }
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(url, init);
      } catch {
        throw new ApiError(0, "network_error", "The service could not be reached");
      }
      if (response.status === 429 && attempt < MAX_ATTEMPTS && options.unloading !== true) {
        await this.sleep(retryDelay(response.headers.get("Retry-After"), attempt) * 1000);
        continue;
      }
      return unwrap<T>(response);
    }
  }
}

/** Seconds to wait before attempt `attempt + 1`. */
export function retryDelay(retryAfter: string | null, attempt: number): number {
  const given = retryAfter === null ? NaN : Number(retryAfter);
  if (Number.isFinite(given) && given >= 0) return Math.min(given, MAX_DELAY_S);
  return Math.min(2 ** (attempt - 1), MAX_DELAY_S);
}

async function unwrap<T>(response: Response): Promise<T> {
  let envelope: { success?: boolean; data?: T; error?: { code?: string; message?: string } };
  try {
    envelope = (await response.json()) as typeof envelope;
  } catch {
    throw new ApiError(response.status, "bad_answer", `The service answered ${response.status}`);
  }
  if (response.ok && envelope.success === true) return envelope.data as T;
  const error = envelope.error ?? {};
  throw new ApiError(
    response.status,
    error.code ?? "unknown",
    error.message ?? `The service answered ${response.status}`,
  );
}
