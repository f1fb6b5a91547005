/**
 * What the OpenAI provider's `embed` sends to `POST /v1/embeddings` and reads back: texts cut
 * into requests of a bounded size, and each answer's vectors put in the order of its inputs.
 * OpenAI takes up to 2,048 inputs and 300,000 tokens a request; the bounds here stay far below,
 * so that one slow or refused request costs little and an answer stays a few megabytes.
 */

export const EMBEDDINGS_PATH = "/v1/embeddings";

/** OpenAI's small embedding model: cheap, multilingual, and shortened without much loss. */
export const EMBEDDING_MODEL = "text-embedding-3-small";

/**
 * The length OpenAI shortens each vector to (the model's full one is 1,536): a 5,000-passage
 * index stays at 5 MB of float32, and search compares 256 numbers per passage.
 */
export const EMBEDDING_DIMENSIONS = 256;

/** Texts per request at most. */
export const MAX_BATCH_INPUTS = 256;

/**
 * Characters per request at most (a text longer than this goes alone): about 25,000 tokens of
 * English, well under OpenAI's 300,000 per request whatever the language.
 */
export const MAX_BATCH_CHARS = 100_000;

/** The body of one request. */
export const embeddingRequest = (texts: string[]) => ({
  model: EMBEDDING_MODEL,
  input: texts,
  dimensions: EMBEDDING_DIMENSIONS,
  encoding_format: "float",
});

/**
 * The largest answer read for `count` texts: each number in JSON takes about 20 bytes, and the
 * rest (usage, model) little.
 */
export const maxAnswerBytes = (count: number) => 64 * 1024 + count * EMBEDDING_DIMENSIONS * 32;

/** `texts` in order, cut into requests of at most MAX_BATCH_INPUTS and MAX_BATCH_CHARS. */
export function embeddingBatches(texts: string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (
      batch.length === MAX_BATCH_INPUTS ||
      (batch.length > 0 && chars + text.length > MAX_BATCH_CHARS)
    ) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(text);
    chars += text.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * The vectors of an answer `{data: [{index, embedding}]}` for `count` inputs, in input order
 * (by `index`, since OpenAI does not promise the list's order), or why the answer is unusable.
 */
export function vectorsOf(answer: unknown, count: number): Float32Array[] | string {
  const data = (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return "OpenAI's answer holds no list of embeddings (data)";
  if (data.length !== count) {
    return `OpenAI's answer holds ${data.length} embeddings for ${count} texts`;
  }
  const vectors = new Array<Float32Array | undefined>(count);
  for (const item of data as unknown[]) {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
      return `OpenAI's answer holds an embedding of no input (index ${JSON.stringify(index)})`;
    }
    if (vectors[index as number] !== undefined) {
      return `OpenAI's answer holds two embeddings of input ${index as number}`;
    }
    if (
      !Array.isArray(embedding) ||
      embedding.length !== EMBEDDING_DIMENSIONS ||
      !embedding.every((x) => typeof x === "number" && Number.isFinite(x))
    ) {
      return `OpenAI's embedding of input ${index as number} is not ${EMBEDDING_DIMENSIONS} numbers`;
    }
    vectors[index as number] = Float32Array.from(embedding as number[]);
  }
  return vectors as Float32Array[];
}
