/**
 * A stand-in for OpenAI's `POST /v1/realtime/client_secrets`, which tests cannot call for real. It
 * follows OpenAI's public contract (API reference "Create client secret", GA Realtime API): bearer
 * auth with the standard key, a JSON body `{expires_after: {anchor, seconds}, session: {type:
 * "realtime", model, instructions, audio: {input: {transcription}, output: {voice}}, tools,
 * output_modalities}}` (`["text"]` for text output only; `["audio"]`, the default, for audio and
 * its transcript; never both), and on success `{value:
 * "ek_…", expires_at: <unix seconds>, session: {…the effective session…}}`. Errors use OpenAI's
 * body `{error: {message, type, param, code}}`: 401 for a missing or wrong key, 400 for a body of
 * the wrong shape (an unknown parameter, a wrong type, an unsupported voice, a tool whose
 * parameters are not a JSON Schema), 404 for another route. The secrets it mints open WebRTC calls
 * on `/v1/realtime/calls` (see realtime-calls.ts, exposed as `calls`), which the standard key
 * controls from the server (realtime-sideband.ts, exposed as `sideband`).
 *
 * It is stricter than OpenAI where Sitevoice's request is concerned: `expires_after`, `model`, a
 * non-empty `instructions`, `audio.output.voice` and `tools` are required, since the provider
 * must always send them. It also answers `POST /v1/embeddings` (openai-embeddings.ts) with
 * vectors of its own making. Every request but the calls' is recorded with what it was answered.
 * `behaviour` (an option, and settable between requests) makes it fail with 500 or 429, never
 * answer, or answer 200 without a usable secret.
 */
import { randomBytes } from "node:crypto";
import { EventEmitter, once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  bearerToken,
  incorrectKey,
  json,
  openAiError,
  type OpenAiErrorBody,
} from "./openai-errors.ts";
import { answerEmbeddings, EMBEDDINGS_PATH, rateLimited } from "./openai-embeddings.ts";
import { BodyCheck, invalidType, missing } from "./openai-params.ts";
import { CALLS_PATH, RealtimeCalls, type MintedSecret } from "./realtime-calls.ts";
import { RealtimeSideband } from "./realtime-sideband.ts";

export { openAiError, type OpenAiErrorBody } from "./openai-errors.ts";

/** The voices OpenAI's GA Realtime API accepts by name (API reference, `audio.output.voice`). */
export const OPENAI_REALTIME_VOICES = [
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar",
] as const;

export const CLIENT_SECRETS_PATH = "/v1/realtime/client_secrets";

/**
 * `mint`: answer as OpenAI does. `fail`: 500 server_error. `rate-limit`: 429
 * rate_limit_exceeded. `hang`: never answer (the connection stays open until the client goes).
 * `not-json`: 200 with an HTML body. `no-secret`: 200 JSON without `value` (client secrets only).
 */
export type StandinBehaviour = "mint" | "fail" | "rate-limit" | "hang" | "not-json" | "no-secret";

export interface RecordedSecretRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
  /** The status answered; undefined while the request hangs. */
  status?: number;
  /** The JSON answered: the client secret on success, else the OpenAI error body. */
  answer?: unknown;
}

export interface OpenAiStandinOptions {
  /** The standard key it accepts; a random `sk-standin-…` when left out. */
  apiKey?: string;
  behaviour?: StandinBehaviour;
  /** The voices accepted; OPENAI_REALTIME_VOICES when left out. */
  voices?: readonly string[];
  /** Milliseconds since the epoch, for `expires_at`; Date.now when left out. */
  now?: () => number;
}

export interface OpenAiStandin {
  /** `http://127.0.0.1:<port>`: the provider's baseUrl. */
  baseUrl: string;
  apiKey: string;
  /** What the next requests meet. */
  behaviour: StandinBehaviour;
  /**
   * Embeddings are answered last input first while set: OpenAI gives each its `index` and does
   * not promise their order.
   */
  reverseEmbeddings: boolean;
  /** Every request received but those to CALLS_PATH, oldest first. */
  requests: RecordedSecretRequest[];
  /** The WebRTC calls endpoint, which takes the secrets minted here. */
  calls: RealtimeCalls;
  /** The calls' server-side control: its WebSocket and the hang-up. */
  sideband: RealtimeSideband;
  /** The next request, once its body is read (before it is answered). */
  nextRequest(): Promise<RecordedSecretRequest>;
  /** The next request whose client closed the connection before the answer was complete. */
  clientGone(): Promise<RecordedSecretRequest>;
  close(): Promise<void>;
}

const SESSION_KEYS = [
  "type",
  "model",
  "instructions",
  "audio",
  "tools",
  "tool_choice",
  "output_modalities",
  "include",
  "max_output_tokens",
  "prompt",
  "tracing",
  "truncation",
];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MIN_SECONDS = 10;
const MAX_SECONDS = 7200;

/** A client-secret request as the provider sends one, small and valid. */
export const validSecretRequest = () => ({
  expires_after: { anchor: "created_at", seconds: 60 },
  session: {
    type: "realtime",
    model: "gpt-realtime",
    instructions: "Be brief.",
    audio: { output: { voice: "marin" } },
    tools: [
      {
        type: "function",
        name: "scroll_to",
        description: "Scrolls.",
        parameters: { type: "object", properties: { section_id: { type: "string" } } },
      },
    ],
  },
});

export async function startOpenAiStandin(
  options: OpenAiStandinOptions = {},
): Promise<OpenAiStandin> {
  const apiKey = options.apiKey ?? `sk-standin-${randomBytes(12).toString("hex")}`;
  const voices = options.voices ?? OPENAI_REALTIME_VOICES;
  const now = options.now ?? Date.now;
  const events = new EventEmitter();
  const requests: RecordedSecretRequest[] = [];
  const secrets = new Map<string, MintedSecret>();
  const calls = new RealtimeCalls((value) => secrets.get(value), now);
  const sideband = new RealtimeSideband(calls, apiKey);

  const standin: OpenAiStandin = {
    baseUrl: "",
    apiKey,
    behaviour: options.behaviour ?? "mint",
    reverseEmbeddings: false,
    requests,
    calls,
    sideband,
    nextRequest: () => next("request"),
    clientGone: () => next("gone"),
    close: async () => {
      await calls.close();
      sideband.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://standin.test").pathname;
    if (path === CALLS_PATH) {
      calls.handle(req, res);
      return;
    }
    if (sideband.handles(path)) {
      sideband.hangUp(req, res, path);
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedSecretRequest = {
        method: req.method ?? "",
        path: new URL(req.url ?? "/", "http://standin.test").pathname,
        headers: req.headers,
        body: parseJson(text) ?? text,
      };
      requests.push(recorded);
      res.on("close", () => {
        if (!res.writableFinished) events.emit("gone", recorded);
      });
      events.emit("request", recorded);
      const answer = (status: number, body: unknown) => {
        recorded.status = status;
        recorded.answer = body;
        json(res, status, body);
      };
      handle(recorded, text, answer);
    });
  });

  function handle(
    recorded: RecordedSecretRequest,
    text: string,
    answer: (status: number, body: unknown) => void,
  ): void {
    const route = recorded.path === EMBEDDINGS_PATH ? "embeddings" : "secrets";
    if (
      ![CLIENT_SECRETS_PATH, EMBEDDINGS_PATH].includes(recorded.path) ||
      recorded.method !== "POST"
    ) {
      answer(404, openAiError(`Invalid URL (${recorded.method} ${recorded.path})`));
      return;
    }
    const behaviour = standin.behaviour;
    if (behaviour === "hang") return;
    if (behaviour === "fail") {
      answer(
        500,
        openAiError("The server had an error while processing your request. Sorry about that!", {
          type: "server_error",
        }),
      );
      return;
    }
    if (behaviour === "rate-limit") {
      answer(429, rateLimited());
      return;
    }
    const authProblem = checkAuth(recorded.headers.authorization, apiKey);
    if (authProblem !== undefined) {
      answer(401, authProblem);
      return;
    }
    const contentType = recorded.headers["content-type"] ?? "";
    if (!/^application\/json\b/i.test(contentType)) {
      answer(
        400,
        openAiError(
          `Invalid Content-Type header (${contentType || "none"}), expected application/json.`,
        ),
      );
      return;
    }
    const body = parseJson(text);
    if (body === undefined) {
      answer(
        400,
        openAiError(
          "We could not parse the JSON body of your request. (HINT: This likely means you " +
            "aren't using your HTTP library correctly.)",
        ),
      );
      return;
    }
    if (route === "embeddings") {
      const embeddings = answerEmbeddings(body, { reversed: standin.reverseEmbeddings });
      answer(embeddings.status, behaviour === "not-json" ? NOT_JSON : embeddings.body);
      return;
    }
    const shapeProblem = checkBody(body, voices);
    if (shapeProblem !== undefined) {
      answer(400, shapeProblem);
      return;
    }
    if (behaviour === "not-json") {
      answer(200, NOT_JSON);
      return;
    }
    const secret = mint(body as ClientSecretBody, now);
    secrets.set(secret.value, secret);
    answer(200, behaviour === "no-secret" ? { ...secret, value: undefined } : secret);
  }

  const next = (event: string) =>
    new Promise<RecordedSecretRequest>((resolve) => events.once(event, resolve));

  server.on("upgrade", (req, socket, head) => sideband.upgrade(req, socket, head));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  standin.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standin;
}

/** What a misconfigured proxy in front of the API might send instead of OpenAI's JSON. */
const NOT_JSON = "<html><body>Welcome to nginx!</body></html>";

interface ClientSecretBody {
  expires_after: { anchor: "created_at"; seconds: number };
  session: {
    type: "realtime";
    model: string;
    instructions: string;
    output_modalities?: ["text"] | ["audio"];
    audio: { input?: { transcription?: object }; output: { voice: string } };
    tools: { type: "function"; name: string; description: string; parameters: object }[];
  };
}

/** A client secret and the effective session, as OpenAI answers them. */
function mint(body: ClientSecretBody, now: () => number) {
  const { session } = body;
  const pcm = { type: "audio/pcm", rate: 24000 };
  return {
    value: `ek_${randomBytes(16).toString("hex")}`,
    expires_at: Math.floor(now() / 1000) + body.expires_after.seconds,
    session: {
      type: "realtime",
      object: "realtime.session",
      id: `sess_${randomBytes(12).toString("hex")}`,
      model: session.model,
      output_modalities: session.output_modalities ?? ["audio"],
      instructions: session.instructions,
      tools: session.tools,
      tool_choice: "auto",
      max_output_tokens: "inf",
      tracing: null,
      truncation: "auto",
      prompt: null,
      expires_at: 0,
      audio: {
        input: {
          format: pcm,
          transcription: session.audio.input?.transcription ?? null,
          noise_reduction: null,
          turn_detection: {
            type: "server_vad",
            threshold: 0.5,
            prefix_padding_ms: 300,
            silence_duration_ms: 200,
            create_response: true,
            interrupt_response: true,
            idle_timeout_ms: null,
          },
        },
        output: { format: pcm, voice: session.audio.output.voice, speed: 1 },
      },
      include: null,
    },
  };
}

function checkAuth(header: string | undefined, apiKey: string): OpenAiErrorBody | undefined {
  const given = bearerToken(header);
  if (typeof given !== "string") return given;
  return given === apiKey ? undefined : incorrectKey(given);
}

/** The first way `body` breaks the contract, as OpenAI words it; undefined when it holds. */
export function checkBody(body: unknown, voices: readonly string[]): OpenAiErrorBody | undefined {
  const check = new BodyCheck();
  const root = check.object(body, "", ["expires_after", "session"]);
  if (root === undefined) return check.problem;

  const expiry = check.object(root.expires_after, "expires_after", ["anchor", "seconds"]);
  if (expiry === undefined) return check.problem;
  if (!check.oneOf(expiry.anchor, "expires_after.anchor", ["created_at"])) return check.problem;
  if (!check.integer(expiry.seconds, "expires_after.seconds", MIN_SECONDS, MAX_SECONDS)) {
    return check.problem;
  }

  const session = check.object(root.session, "session", SESSION_KEYS);
  if (session === undefined) return check.problem;
  if (!check.oneOf(session.type, "session.type", ["realtime"])) return check.problem;
  if (!check.string(session.model, "session.model")) return check.problem;
  if (!check.string(session.instructions, "session.instructions")) return check.problem;
  const modalities = session.output_modalities;
  if (modalities !== undefined && !check.modalities(modalities, "session.output_modalities")) {
    return check.problem;
  }
  const audio = check.object(session.audio, "session.audio", ["input", "output"]);
  if (audio === undefined) return check.problem;
  const output = check.object(audio.output, "session.audio.output", ["format", "speed", "voice"]);
  if (output === undefined) return check.problem;
  if (!check.oneOf(output.voice, "session.audio.output.voice", voices)) return check.problem;

  if (!Array.isArray(session.tools)) {
    return session.tools === undefined
      ? missing("session.tools")
      : invalidType("session.tools", "an array", session.tools);
  }
  const names = new Set<string>();
  for (const [index, item] of session.tools.entries()) {
    const at = `session.tools[${index}]`;
    const tool = check.object(item, at, ["type", "name", "description", "parameters"]);
    if (tool === undefined) return check.problem;
    if (!check.oneOf(tool.type, `${at}.type`, ["function"])) return check.problem;
    if (!check.string(tool.name, `${at}.name`)) return check.problem;
    const name = tool.name as string;
    if (!TOOL_NAME.test(name)) {
      return openAiError(
        `Invalid '${at}.name': string does not match pattern. Expected a string that matches ` +
          `the pattern '${TOOL_NAME.source}'.`,
        { param: `${at}.name`, code: "invalid_value" },
      );
    }
    if (names.has(name)) {
      return openAiError(`Duplicate tool name '${name}' in session.tools.`, {
        param: `${at}.name`,
        code: "invalid_value",
      });
    }
    names.add(name);
    if (!check.string(tool.description, `${at}.description`)) return check.problem;
    const parameters = check.object(tool.parameters, `${at}.parameters`);
    if (parameters === undefined) return check.problem;
    const schemaProblem = schemaError(parameters);
    if (schemaProblem !== undefined) {
      return openAiError(`Invalid schema for function '${name}': ${schemaProblem}`, {
        param: `${at}.parameters`,
        code: "invalid_function_parameters",
      });
    }
  }
  return undefined;
}

const schemaAjv = new Ajv2020({ strict: false });

/** Why `schema` is not a JSON Schema of an object, or undefined when it is one. */
function schemaError(schema: Record<string, unknown>): string | undefined {
  if (schema.type !== "object") return "schema must be a JSON Schema of 'type: \"object\"'.";
  try {
    schemaAjv.compile(schema);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
