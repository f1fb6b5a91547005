/**
 * The stand-in's `POST /v1/embeddings`, which the provider's `embed` is tested against: the
 * answer has OpenAI's shape, what OpenAI refuses is refused in its error shape, and its vectors
 * (a hashed bag of words, not a model) put texts that share words close together.
 */
import { expect } from "chai";
import { EMBEDDINGS_PATH } from "../../test/helpers/openai-embeddings.ts";
import { startOpenAiStandin, type OpenAiStandin } from "../../test/helpers/openai-standin.ts";

interface EmbeddingList {
  object: string;
  data: { object: string; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

describe("OpenAI embeddings stand-in", () => {
  let standin: OpenAiStandin;

  beforeEach(async () => {
    standin = await startOpenAiStandin();
  });

  afterEach(() => standin.close());

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${standin.baseUrl}${EMBEDDINGS_PATH}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${standin.apiKey}`,
        "content-type": "application/json",
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  const embed = async (input: string | string[], extra: Record<string, unknown> = {}) => {
    const answer = await post({ model: "text-embedding-3-small", input, ...extra });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as EmbeddingList;
  };

  const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

  it("answers a list of inputs with one embedding each, in order, in OpenAI's shape", async () => {
    const list = await embed(["opening hours", "delivery times"], { dimensions: 8 });
    expect(Object.keys(list).sort()).to.deep.equal(["data", "model", "object", "usage"]);
    expect(list.object).to.equal("list");
    expect(list.model).to.equal("text-embedding-3-small");
    expect(list.data.map((d) => [d.object, d.index])).to.deep.equal([
      ["embedding", 0],
      ["embedding", 1],
    ]);
    expect(list.data.map((d) => (d.embedding as number[]).length)).to.deep.equal([8, 8]);
    expect(list.usage.prompt_tokens).to.be.greaterThan(0);
    expect(list.usage.total_tokens).to.equal(list.usage.prompt_tokens);
  });

  it("takes a single string as input", async () => {
    const list = await embed("opening hours", { dimensions: 16 });
    expect(list.data).to.have.lengthOf(1);
    expect(list.data[0]?.index).to.equal(0);
  });

  it("gives text-embedding-3-small's 1536 dimensions when none are asked for", async () => {
    const list = await embed(["opening hours"]);
    expect((list.data[0]?.embedding as number[]).length).to.equal(1536);
  });

  it("gives unit-length vectors", async () => {
    const list = await embed(["We are open on Sundays from ten to four."], { dimensions: 64 });
    const vector = list.data[0]?.embedding as number[];
    expect(Math.abs(cosine(vector, vector) - 1)).to.be.below(1e-6);
  });

  it("gives the same text the same vector", async () => {
    const [a, b] = (await embed(["Delivery takes two days.", "delivery TAKES two days"])).data;
    expect(a?.embedding).to.deep.equal(b?.embedding);
  });

  it("puts texts sharing words closer than texts that share none", async () => {
    const list = await embed(
      [
        "Are you open on Sundays?",
        "Opening hours: we are open Monday to Sunday, 9 to 5.",
        "Our bakery ships bread across the country.",
      ],
      { dimensions: 256 },
    );
    const [question, hours, shipping] = list.data.map((d) => d.embedding as number[]);
    expect(cosine(question!, hours!)).to.be.greaterThan(cosine(question!, shipping!));
  });

  it("relates a few synonyms, as a model would (shipping and delivery)", async () => {
    const list = await embed(
      [
        "How long does shipping take?",
        "Delivery: parcels arrive within two working days.",
        "Opening hours: Monday to Friday.",
      ],
      { dimensions: 256 },
    );
    const [question, delivery, hours] = list.data.map((d) => d.embedding as number[]);
    expect(cosine(question!, delivery!)).to.be.greaterThan(cosine(question!, hours!));
  });

  it("answers base64 little-endian float32 when asked for encoding_format base64", async () => {
    const floats = await embed(["opening hours"], { dimensions: 4 });
    const base64 = await embed(["opening hours"], { dimensions: 4, encoding_format: "base64" });
    const bytes = Buffer.from(base64.data[0]?.embedding as string, "base64");
    const decoded = [0, 1, 2, 3].map((i) => bytes.readFloatLE(i * 4));
    const expected = (floats.data[0]?.embedding as number[]).map((x) => Math.fround(x));
    expect(decoded).to.deep.equal(expected);
  });

  it("records each request with what it answered", async () => {
    await embed(["a"], { dimensions: 2 });
    expect(standin.requests.map((r) => [r.path, r.status])).to.deep.equal([[EMBEDDINGS_PATH, 200]]);
  });

  describe("refuses what OpenAI refuses, in OpenAI's error shape", () => {
    const body = (extra: Record<string, unknown>) => ({
      model: "text-embedding-3-small",
      input: ["opening hours"],
      ...extra,
    });
    const cases: [string, unknown, Record<string, string>, number, string | null][] = [
      ["no key", body({}), { authorization: "" }, 401, null],
      [
        "a wrong key",
        body({}),
        { authorization: "Bearer sk-nope-0123456789" },
        401,
        "invalid_api_key",
      ],
      ["a body that is not JSON", "{not json", {}, 400, null],
      ["no input", { model: "text-embedding-3-small" }, {}, 400, "missing_required_parameter"],
      ["no model", { input: ["a"] }, {}, 400, "missing_required_parameter"],
      ["an empty string among the inputs", body({ input: ["a", ""] }), {}, 400, null],
      ["an empty list of inputs", body({ input: [] }), {}, 400, null],
      ["more than 2048 inputs", body({ input: Array<string>(2049).fill("a") }), {}, 400, null],
      ["an input that is not text", body({ input: [true] }), {}, 400, null],
      ["dimensions above the model's", body({ dimensions: 1537 }), {}, 400, "invalid_value"],
      ["dimensions of zero", body({ dimensions: 0 }), {}, 400, "integer_below_min_value"],
      ["an unknown encoding_format", body({ encoding_format: "int8" }), {}, 400, "invalid_value"],
      ["an unknown parameter", body({ normalize: true }), {}, 400, null],
      ["an unknown model", body({ model: "text-embedding-9" }), {}, 404, "model_not_found"],
    ];
    for (const [what, request, headers, status, code] of cases) {
      it(`${status} ${code ?? "(no code)"} for ${what}`, async () => {
        const answer = await post(request, headers);
        expect(answer.status).to.equal(status);
        const error = (answer.body as { error: Record<string, unknown> }).error;
        expect(Object.keys(error).sort()).to.deep.equal(["code", "message", "param", "type"]);
        expect(error.code).to.equal(code);
        expect(error.message).to.be.a("string").and.not.equal("");
      });
    }
  });

  it("answers 429 rate_limit_exceeded while its behaviour is rate-limit", async () => {
    standin.behaviour = "rate-limit";
    const answer = await post({ model: "text-embedding-3-small", input: ["a"] });
    expect(answer.status).to.equal(429);
    expect(answer.body).to.have.nested.property("error.code", "rate_limit_exceeded");
  });
});
