/**
 * The REST adapter's one kind of request: a GET of a customer's API that answers a list of
 * records, either bare or as DRF's `{count, results}`. Everything that can go wrong (refused by
 * the outbound policy, unreachable, too slow, non-2xx, too big, not JSON, the wrong shape)
 * becomes a readable message that names the backend's host and never a credential: these messages
 * reach the site owner in `details.error` and the logs.
 */
import { outboundRefusal, ResponseTooLargeError } from "sitevoice";
import type { GuardedRequest, OutboundResponse } from "sitevoice";
import type { Logger } from "sitevoice";

/** The most of an answer read: a REST source is meant for small collections (under 500 items). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export type RecordsAnswer =
  | { ok: true; records: Record<string, unknown>[]; count: number | undefined }
  | { ok: false; error: string };

export interface RestClientOptions {
  /** The host's guarded request. */
  request: GuardedRequest;
  /** Sent on every request: Accept, the configured headers and the auth header. */
  headers: Record<string, string>;
  /**
   * The site owner's own per-request limit, when shorter than the host's deadline; without it
   * the caller's signal, which the host aborts at its deadline, bounds each request.
   */
  timeoutMs?: number;
  /** Values that must never appear in a message, whatever a lower layer put in it. */
  secrets: string[];
  /** Receives the code of each network failure, which the message leaves out. */
  logger?: Logger;
}

/** Why a request ended early, told apart from the signal that ended it. */
class Timeout extends Error {}

export class RestClient {
  readonly #options: RestClientOptions;

  constructor(options: RestClientOptions) {
    this.#options = options;
  }

  /** GETs `url` and reads its records. */
  async records(url: URL, signal: AbortSignal): Promise<RecordsAnswer> {
    const answer = await this.#get(url, signal, MAX_BODY_BYTES, (response) =>
      response.status >= 200 && response.status < 300
        ? parseRecords(response.body)
        : { ok: false, error: `backend answered ${statusLine(response)}` },
    );
    return answer.ok ? answer : { ok: false, error: this.#redact(answer.error) };
  }

  /** Resolves when `url` answers at all (any status, its body unread), else rejects with why not. */
  async reach(url: URL, signal: AbortSignal): Promise<void> {
    const answer = await this.#get(url, signal, 0, () => ({
      ok: true,
      records: [],
      count: undefined,
    }));
    if (!answer.ok) throw new Error(this.#redact(answer.error));
  }

  async #get(
    url: URL,
    signal: AbortSignal,
    maxBytes: number,
    read: (response: OutboundResponse) => RecordsAnswer,
  ): Promise<RecordsAnswer> {
    const { timeoutMs } = this.#options;
    // One abort per request: the caller's signal, unless the site owner set a shorter timeout.
    let ownSignal: AbortSignal = signal;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    if (timeoutMs !== undefined) {
      const controller = new AbortController();
      timer = setTimeout(() => controller.abort(new Timeout()), timeoutMs);
      onAbort = () => controller.abort(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      ownSignal = controller.signal;
    }
    const host = url.host;
    try {
      const response = await this.#options.request(url, {
        headers: this.#options.headers,
        signal: ownSignal,
        maxBytes,
      });
      return read(response);
    } catch (error) {
      if (ownSignal.reason instanceof Timeout) {
        return { ok: false, error: `backend at ${host} did not answer within ${timeoutMs} ms` };
      }
      if (signal.aborted) {
        return { ok: false, error: `the request to the backend at ${host} was cancelled` };
      }
      if (error instanceof ResponseTooLargeError) {
        return {
          ok: false,
          error: `backend answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`,
        };
      }
      this.#options.logger?.warn(
        { host, code: errorCode(error) },
        "could not reach the REST backend",
      );
      return { ok: false, error: failureMessage(error, host) };
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
    }
  }

  /** A last guard: lower layers' messages are not ours to trust with a secret. */
  #redact(message: string): string {
    let safe = message;
    for (const secret of this.#options.secrets) safe = safe.split(secret).join("[redacted]");
    return safe;
  }
}

/** `503 Service Unavailable`, with the standard reason when the backend gave none. */
function statusLine(response: OutboundResponse): string {
  const reason = response.statusText;
  return reason === "" ? String(response.status) : `${response.status} ${reason}`;
}

function parseRecords(body: Buffer): RecordsAnswer {
  let json: unknown;
  try {
    // A leading BOM, which JSON.parse would choke on, is dropped as TextDecoder would.
    const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    json = JSON.parse(body.toString("utf8", start));
  } catch {
    return { ok: false, error: "backend answered invalid JSON" };
  }
  let records: unknown[];
  let count: number | undefined;
  if (Array.isArray(json)) {
    records = json;
  } else if (isObject(json) && Array.isArray(json.results)) {
    records = json.results;
    const given = json.count;
    count = typeof given === "number" && Number.isInteger(given) && given >= 0 ? given : undefined;
  } else {
    return {
      ok: false,
      error: "backend answered JSON that is neither a list of records nor {results: [...], count}",
    };
  }
  if (!records.every(isObject)) {
    return { ok: false, error: "backend answered a list whose entries are not all JSON objects" };
  }
  return { ok: true, records, count };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A refusal by the outbound policy keeps its own message (it tells the site owner what to ask
 * the operator for); every network failure, refused, reset, timed out, unreachable, DNS or TLS,
 * is one message: telling them apart would tell whoever writes baseUrl which ports are open on
 * the hosts they may reach. The RestClient's logger keeps the code.
 */
function failureMessage(error: unknown, host: string): string {
  const blocked = outboundRefusal(error);
  if (blocked !== undefined) return blocked.message;
  return `could not reach the backend at ${host}`;
}

/** An error and its causes, outermost first. */
function causes(error: unknown): Record<string, unknown>[] {
  const chain: Record<string, unknown>[] = [];
  for (let e = error; isObject(e) && chain.length < 5; e = e.cause) chain.push(e);
  return chain;
}

/** The code of an error or of the first cause that has one. */
function errorCode(error: unknown): string | undefined {
  const withCode = causes(error).find(
    (e) => typeof e.code === "string" && /^[A-Z0-9_]+$/.test(e.code),
  );
  return withCode?.code as string | undefined;
}
