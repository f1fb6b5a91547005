/**
 * OpenAI's error body, `{error: {message, type, param, code}}`, the authentication errors its
 * API answers with 401, worded as OpenAI words them, and sending an answer. Shared by the
 * stand-in's routes.
 */
import type http from "node:http";

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function openAiError(
  message: string,
  options: { type?: string; param?: string; code?: string } = {},
): OpenAiErrorBody {
  return {
    error: {
      message,
      type: options.type ?? "invalid_request_error",
      param: options.param ?? null,
      code: options.code ?? null,
    },
  };
}

/** The bearer token of an `Authorization` header, or the error for a request without one. */
export function bearerToken(header: string | undefined): string | OpenAiErrorBody {
  const match = /^Bearer (.+)$/.exec(header ?? "");
  if (match !== null) return match[1] as string;
  return openAiError(
    "You didn't provide an API key. You need to provide your API key in an Authorization " +
      "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
  );
}

/** The error for a key OpenAI does not accept; as OpenAI does, it shows only the key's ends. */
export function incorrectKey(given: string): OpenAiErrorBody {
  const masked =
    given.length < 12 ? "*".repeat(given.length) : `${given.slice(0, 3)}****${given.slice(-4)}`;
  return openAiError(
    `Incorrect API key provided: ${masked}. You can find your API key at ` +
      "https://platform.openai.com/account/api-keys.",
    { code: "invalid_api_key" },
  );
}

/** Sends `body` as JSON, or a string as HTML (what a proxy in OpenAI's place might send). */
export function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": typeof body === "string" ? "text/html" : "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
