/**
 * How the OpenAI provider words what went wrong with a request: a refusal with OpenAI's own
 * message (never its 401 message, which quotes part of the key), the status line, and why no
 * answer came.
 */
import http from "node:http";
import { outboundRefusal } from "sitevoice";

/** OpenAI's own words are kept in messages (they name a bad voice or model), up to this length. */
const MAX_QUOTED_CHARS = 300;

/** What a non-2xx answer means, with OpenAI's own message when it gave one. */
export function refusal(response: Response, text: string): string {
  const status = statusLine(response);
  // OpenAI's 401 message quotes part of the key; what matters is which setting to fix.
  if (response.status === 401) {
    return `OpenAI answered ${status}: the API key was refused (check OPENAI_API_KEY)`;
  }
  const detail = openAiMessage(text);
  return detail === undefined
    ? `OpenAI answered ${status}`
    : `OpenAI answered ${status}: ${detail}`;
}

/** `error.message` of OpenAI's error body `{error: {message, type, param, code}}`. */
function openAiMessage(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  if (typeof message !== "string" || message.trim() === "") return undefined;
  const oneLine = message.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_QUOTED_CHARS ? `${oneLine.slice(0, MAX_QUOTED_CHARS)}…` : oneLine;
}

/** `503 Service Unavailable`, with the standard reason when the answer gave none. */
export function statusLine(response: Response): string {
  const reason = response.statusText || http.STATUS_CODES[response.status] || "";
  return reason === "" ? String(response.status) : `${response.status} ${reason}`;
}

/**
 * Why no answer came: the SSRF guard's refusal (its message names only the host), or that the
 * network failed (its code goes to the log, not to the client).
 */
export function unreachable(error: unknown, host: string): string {
  return outboundRefusal(error)?.message ?? `OpenAI at ${host} could not be reached`;
}
