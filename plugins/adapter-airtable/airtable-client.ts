/**
 * The adapter's one kind of request: a GET of Airtable's Web API answering JSON, with the site's
 * OAuth access token. The token comes from the host (`context.oauth.accessToken()`) for every
 * request; when Airtable answers 401 the token is handed back as `rejected`, so the host
 * refreshes it, and the request is sent once more with the new one. A rejection of
 * `accessToken()` (the site is not connected, or must reconnect) is the host's `adapter_error`
 * and goes through untouched.
 *
 * Everything else that can go wrong (refused by the outbound policy, unreachable, too slow, a
 * non-2xx status, too big, not JSON) becomes a readable message quoting Airtable's own error
 * (`{"error": {"type", "message"}}`, `{"error": "NOT_FOUND"}`, `{"errors": [{"error",
 * "message"}]}`); a 429 gets a message of its own, saying what Airtable's rate limit means. The
 * message reaches the site owner in `details.error` and the logs: so no token may be in it,
 * whatever a lower layer or a proxy put there.
 */
import { outboundRefusal, ResponseTooLargeError } from "sitevoice";
import type { GuardedRequest, OAuthAccess, OutboundResponse } from "sitevoice";
import type { Logger } from "sitevoice";
import type { Answer } from "./airtable-schema.ts";

/** The most of an answer read: a page of 100 records, or a large base's metadata. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Airtable refuses URLs of 16,000 characters or more (List records, "Note"). */
export const MAX_URL_LENGTH = 16_000;
/** The most of Airtable's own error message quoted. */
const MAX_QUOTED = 300;

export interface AirtableClientOptions {
  request: GuardedRequest;
  oauth: OAuthAccess;
  /**
   * The site owner's own per-request limit, when shorter than the host's deadline; without it
   * the caller's signal, which the host aborts at its deadline, bounds each request.
   */
  timeoutMs?: number;
  /** Receives the code of each network failure, which the message leaves out. */
  logger?: Logger;
}

/** Why a request ended early, told apart from the signal that ended it. */
class Timeout extends Error {}

type Sent = { ok: true; response: OutboundResponse } | { ok: false; error: string };

export class AirtableClient {
  readonly #options: AirtableClientOptions;

  constructor(options: AirtableClientOptions) {
    this.#options = options;
  }

  /** GETs `url` and parses its JSON, refreshing the token once if Airtable refuses it. */
  async getJson(url: URL, signal: AbortSignal): Promise<Answer<unknown>> {
    if (url.href.length >= MAX_URL_LENGTH) {
      return {
        ok: false,
        error: `the search is too long for Airtable (URLs must be under ${MAX_URL_LENGTH} characters): use fewer or shorter values`,
      };
    }
    const { oauth } = this.#options;
    const tokens = [await oauth.accessToken({ signal })];
    let sent = await this.#send(url, tokens[0] as string, signal);
    if (sent.ok && sent.response.status === 401) {
      tokens.push(await oauth.accessToken({ rejected: tokens[0], signal }));
      sent = await this.#send(url, tokens[1] as string, signal);
    }
    const answer = sent.ok ? read(sent.response) : sent;
    return answer.ok ? answer : { ok: false, error: redact(answer.error, tokens) };
  }

  async #send(url: URL, token: string, signal: AbortSignal): Promise<Sent> {
    const { timeoutMs } = this.#options;
    // One abort per request: the caller's signal, unless the site owner set a shorter timeout.
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => controller.abort(new Timeout()), timeoutMs);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.#options.request(url, {
        headers: { accept: "application/json", authorization: `Bearer ${token}` },
        signal: controller.signal,
        maxBytes: MAX_BODY_BYTES,
      });
      return { ok: true, response };
    } catch (error) {
      return { ok: false, error: this.#failure(error, url.host, controller.signal) };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  #failure(error: unknown, host: string, signal: AbortSignal): string {
    if (signal.reason instanceof Timeout) {
      return `Airtable at ${host} did not answer within ${this.#options.timeoutMs} ms`;
    }
    if (signal.aborted) return `the request to Airtable at ${host} was cancelled`;
    if (error instanceof ResponseTooLargeError) {
      return `Airtable's answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`;
    }
    const blocked = outboundRefusal(error);
    if (blocked !== undefined) return blocked.message;
    // Refused, reset, timed out, DNS or TLS: one message; the log keeps the code.
    this.#options.logger?.warn({ host, code: errorCode(error) }, "could not reach Airtable");
    return `could not reach Airtable at ${host}`;
  }
}

/** A 2xx answer's JSON, or the failure Airtable's status and error body describe. */
function read(response: OutboundResponse): Answer<unknown> {
  if (response.status < 200 || response.status >= 300) {
    return { ok: false, error: statusMessage(response) };
  }
  try {
    return { ok: true, value: JSON.parse(response.body.toString("utf8")) };
  } catch {
    return { ok: false, error: "Airtable answered invalid JSON" };
  }
}

/** What a non-2xx answer says, in Airtable's words when it gave any. */
function statusMessage(response: OutboundResponse): string {
  if (response.status === 429) {
    return (
      "Airtable's rate limit was reached (5 requests per second per base): " +
      "it refuses the base's requests for the next 30 seconds"
    );
  }
  const { type, message } = airtableError(response.body);
  const status = type ?? response.statusText;
  const head = `Airtable answered ${response.status}${status ? ` ${status}` : ""}`;
  const said = message === undefined ? "" : `: ${message.slice(0, MAX_QUOTED)}`;
  const hint =
    response.status === 401 ? " (the site's Airtable connection may need to be reconnected)" : "";
  return head + said + hint;
}

/** The type and message of any of Airtable's error bodies; empty when there is none. */
function airtableError(body: Buffer): { type?: string; message?: string } {
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    return {};
  }
  if (!isObject(json)) return {};
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  if (isObject(json.error))
    return { type: text(json.error.type), message: text(json.error.message) };
  if (typeof json.error === "string")
    return { type: text(json.error), message: text(json.message) };
  const first: unknown = Array.isArray(json.errors) ? json.errors[0] : undefined;
  if (isObject(first)) return { type: text(first.error), message: text(first.message) };
  return {};
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A last guard: the tokens used never leave in a message, whoever put them there. */
function redact(message: string, tokens: string[]): string {
  let safe = message;
  for (const token of tokens) if (token.length > 0) safe = safe.split(token).join("[redacted]");
  return safe;
}

/** The code of an error or of the first cause that has one. */
function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; isObject(e) && depth < 5; depth++, e = e.cause) {
    if (typeof e.code === "string" && /^[A-Z0-9_]+$/.test(e.code)) return e.code;
  }
  return undefined;
}
