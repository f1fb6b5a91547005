/**
 * The stand-in's `POST /v1/embeddings` (served by openai-standin.ts), after OpenAI's public
 * contract (API reference "Create embeddings"): a body `{model, input: string | string[],
 * dimensions?, encoding_format?: "float" | "base64", user?}` answered with `{object: "list",
 * data: [{object: "embedding", index, embedding}], model, usage: {prompt_tokens, total_tokens}}`,
 * and OpenAI's errors: 400 for an empty or over-long input, more than 2048 inputs, more than
 * 300,000 tokens in all, dimensions the model does not have, an unknown parameter; 404 for an
 * unknown model. Token arrays, which OpenAI also takes as input, are refused here: Sitevoice
 * sends text.
 *
 * It is a stand-in, not a model. A vector is a hashed bag of words: the text is lower-cased,
 * diacritics folded, split into words, stop words dropped, each word crudely stemmed and mapped
 * through a small table of synonyms (shipping and delivery, cost and price, …), and each word
 * adds ±1 to one of `dimensions` buckets chosen by its hash; the vector is then L2-normalized,
 * as OpenAI's are. Texts that share words (or listed synonyms) are therefore close, and the same
 * text always gets the same vector, which is all a test of ranking can ask for.
 */
import { openAiError, type OpenAiErrorBody } from "./openai-errors.ts";

export const EMBEDDINGS_PATH = "/v1/embeddings";

/** OpenAI's embedding models with their full dimensions, and whether `dimensions` may shorten. */
const MODELS: Record<string, { dimensions: number; shortens: boolean }> = {
  "text-embedding-3-small": { dimensions: 1536, shortens: true },
  "text-embedding-3-large": { dimensions: 3072, shortens: true },
  "text-embedding-ada-002": { dimensions: 1536, shortens: false },
};
const BODY_KEYS = ["model", "input", "dimensions", "encoding_format", "user"];
const MAX_INPUTS = 2048;
const MAX_INPUT_TOKENS = 8192;
const MAX_REQUEST_TOKENS = 300_000;

/**
 * The status and JSON body the stand-in answers a parsed embeddings request with; `reversed`
 * lists the embeddings last input first (each keeps its `index`).
 */
export function answerEmbeddings(
  body: unknown,
  options: { reversed?: boolean } = {},
): { status: number; body: unknown } {
  const refused = (problem: OpenAiErrorBody, status = 400) => ({ status, body: problem });
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return refused(invalidInput());
  }
  const request = body as Record<string, unknown>;
  const unknown = Object.keys(request).find((key) => !BODY_KEYS.includes(key));
  if (unknown !== undefined) {
    return refused(openAiError(`Unrecognized request argument supplied: ${unknown}`));
  }
  if (request.input === undefined) return refused(missing("input"));
  if (request.model === undefined) return refused(missing("model"));
  const model = MODELS[String(request.model)];
  if (model === undefined) {
    const message = `The model \`${String(request.model)}\` does not exist or you do not have access to it.`;
    return refused(openAiError(message, { code: "model_not_found" }), 404);
  }
  const inputs = typeof request.input === "string" ? [request.input] : request.input;
  if (
    !Array.isArray(inputs) ||
    inputs.length === 0 ||
    inputs.length > MAX_INPUTS ||
    !inputs.every((text) => typeof text === "string" && text !== "")
  ) {
    return refused(invalidInput());
  }
  const dimensions = checkDimensions(request.dimensions, model);
  if (typeof dimensions !== "number") return refused(dimensions);
  const format = request.encoding_format ?? "float";
  if (format !== "float" && format !== "base64") {
    return refused(
      openAiError(
        `Invalid value: '${String(format)}'. Supported values are: 'float' and 'base64'.`,
        {
          param: "encoding_format",
          code: "invalid_value",
        },
      ),
    );
  }
  const tokens = (inputs as string[]).map(countTokens);
  const longest = Math.max(...tokens);
  if (longest > MAX_INPUT_TOKENS) {
    return refused(
      openAiError(
        `This model's maximum context length is ${MAX_INPUT_TOKENS} tokens, however you ` +
          `requested ${longest} tokens (${longest} in your prompt; 0 for the completion). ` +
          "Please reduce your prompt; or completion length.",
      ),
    );
  }
  const total = tokens.reduce((sum, n) => sum + n, 0);
  if (total > MAX_REQUEST_TOKENS) {
    return refused(
      openAiError(`Requested ${total} tokens, max ${MAX_REQUEST_TOKENS} tokens per request`, {
        code: "max_tokens_per_request",
      }),
    );
  }
  const data = (inputs as string[]).map((text, index) => {
    const vector = standinEmbedding(text, dimensions);
    return {
      object: "embedding",
      index,
      embedding: format === "float" ? vector : base64Floats(vector),
    };
  });
  return {
    status: 200,
    body: {
      object: "list",
      data: options.reversed === true ? data.toReversed() : data,
      model: request.model,
      usage: { prompt_tokens: total, total_tokens: total },
    },
  };
}

/** The rate-limit error OpenAI answers 429 with. */
export const rateLimited = (): OpenAiErrorBody =>
  openAiError(
    "Rate limit reached for text-embedding-3-small in organization org-standin on requests per " +
      "min (RPM): Limit 3000, Used 3000, Requested 1. Please try again in 20ms.",
    { type: "requests", code: "rate_limit_exceeded" },
  );

function checkDimensions(
  value: unknown,
  model: { dimensions: number; shortens: boolean },
): number | OpenAiErrorBody {
  if (value === undefined) return model.dimensions;
  if (!model.shortens) return openAiError("This model does not support specifying dimensions.");
  if (!Number.isInteger(value)) {
    return openAiError(`Invalid type for 'dimensions': expected an integer.`, {
      param: "dimensions",
      code: "invalid_type",
    });
  }
  const n = value as number;
  if (n < 1) {
    return openAiError(
      `Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got ${n} instead.`,
      { param: "dimensions", code: "integer_below_min_value" },
    );
  }
  if (n > model.dimensions) {
    return openAiError(
      `Invalid value for 'dimensions' = ${n}. Must be less than or equal to ${model.dimensions}.`,
      { param: "dimensions", code: "invalid_value" },
    );
  }
  return n;
}

const invalidInput = () =>
  openAiError(
    "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
  );

const missing = (param: string) =>
  openAiError(`Missing required parameter: '${param}'.`, {
    param,
    code: "missing_required_parameter",
  });

/** About as many tokens as OpenAI's tokenizer counts: a word or a punctuation mark each. */
const countTokens = (text: string) => text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 1;

const STOP_WORDS = new Set(
  (
    "a an and are as at be by can do does for from has have how i in is it its me my of on or " +
    "our the this that to us we what when where which will with you your"
  ).split(" "),
);

/** Stems mapped to one meaning, so a few questions find passages worded otherwise. */
const SYNONYMS: Record<string, string> = {
  ship: "deliver",
  delivery: "deliver",
  parcel: "deliver",
  cost: "price",
  fee: "price",
  charge: "price",
  pay: "price",
  book: "reserv",
  reservation: "reserv",
  appointment: "reserv",
  refund: "return",
  hour: "open",
};

/** The stand-in's vector of `text`: a signed, hashed bag of stemmed words, of unit length. */
export function standinEmbedding(text: string, dimensions: number): number[] {
  const folded = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  const all = folded.match(/[\p{L}\p{N}]+/gu) ?? [];
  const words = all.filter((word) => !STOP_WORDS.has(word));
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of words.length > 0 ? words : all) {
    const stem = stemOf(word);
    const hash = fnv1a(SYNONYMS[stem] ?? stem);
    vector[hash % dimensions]! += hash & 0x8000_0000 ? -1 : 1;
  }
  const norm = Math.hypot(...vector);
  if (norm === 0) vector[0] = 1;
  return norm === 0 ? vector : vector.map((x) => x / norm);
}

/** A crude English stemmer: enough that "opening", "opens" and "open" meet. */
function stemOf(word: string): string {
  let stem = word.replace(/'s$/, "");
  if (stem.length > 4 && stem.endsWith("ies")) stem = `${stem.slice(0, -3)}y`;
  else if (stem.length > 5 && stem.endsWith("ing")) stem = stem.slice(0, -3);
  else if (stem.length > 4 && stem.endsWith("ed")) stem = stem.slice(0, -2);
  else if (stem.length > 3 && stem.endsWith("s") && !stem.endsWith("ss")) stem = stem.slice(0, -1);
  // shipp → ship, runn → run
  if (/([b-df-hj-kmnp-rtv-z])\1$/.test(stem) && !/(ll|ss|zz)$/.test(stem)) stem = stem.slice(0, -1);
  return stem;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** `encoding_format: "base64"`: the vector as little-endian float32, base64-encoded. */
function base64Floats(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString("base64");
}
