/**
 * The OpenAI provider's `embed` (meaning search of a site's knowledge), through the host against
 * the stand-in over HTTP: the request it sends, batches whose vectors come back in input order,
 * and each failure reported as the plugin's error without the key.
 */
import path from "node:path";
import { expect } from "chai";
import type { PluginHost, VoiceProvider } from "sitevoice";
import { testPluginHost } from "sitevoice/testing";
import { EMBEDDINGS_PATH, standinEmbedding } from "../../test/helpers/openai-embeddings.ts";
import { startOpenAiStandin, type OpenAiStandin } from "../../test/helpers/openai-standin.ts";
import { hostWithBuiltins, unavailable } from "./provider-openai-fixtures.ts";

describe("provider-openai embed", () => {
  let standin: OpenAiStandin;
  let host: PluginHost;

  const provider = (config: Record<string, unknown> = {}): Promise<VoiceProvider> =>
    host.instance(
      "voice-provider",
      "openai",
      { baseUrl: standin.baseUrl, apiKey: standin.apiKey, ...config },
      "global",
    );

  /** `embed` of the provider, which the contract leaves optional. */
  const embed = async (texts: string[], signal?: AbortSignal, config = {}) => {
    const instance = await provider(config);
    expect(instance.embed).to.be.a("function");
    return instance.embed!(texts, signal);
  };

  const embeddingRequests = () => standin.requests.filter((r) => r.path === EMBEDDINGS_PATH);
  const inputsOf = (i: number) => (embeddingRequests()[i]?.body as { input: string[] }).input;
  const texts = (n: number, chars = 0) =>
    Array.from({ length: n }, (_, i) => `passage ${i} ${"x".repeat(chars)}`.trim());

  before(async () => {
    host = await hostWithBuiltins();
  });

  after(() => host.close());

  beforeEach(async () => {
    standin = await startOpenAiStandin();
  });

  afterEach(() => standin.close());

  it("sends the key, text-embedding-3-small, 256 dimensions and float encoding", async () => {
    await embed(["Are you open on Sundays?"]);
    const [request] = embeddingRequests();
    expect(request?.method).to.equal("POST");
    expect(request?.headers.authorization).to.equal(`Bearer ${standin.apiKey}`);
    expect(request?.body).to.deep.equal({
      model: "text-embedding-3-small",
      input: ["Are you open on Sundays?"],
      dimensions: 256,
      encoding_format: "float",
    });
  });

  it("answers one Float32Array of 256 numbers per text: OpenAI's vectors", async () => {
    const vectors = await embed(["Opening hours", "Delivery"]);
    expect(vectors.map((v) => [v.constructor.name, v.length])).to.deep.equal([
      ["Float32Array", 256],
      ["Float32Array", 256],
    ]);
    expect([...vectors[1]!]).to.deep.equal(
      standinEmbedding("Delivery", 256).map((x) => Math.fround(x)),
    );
  });

  it("keeps the order of the texts when OpenAI lists the embeddings in another", async () => {
    standin.reverseEmbeddings = true;
    const vectors = await embed(["Opening hours", "Delivery", "Prices"]);
    const expected = ["Opening hours", "Delivery", "Prices"].map((text) =>
      standinEmbedding(text, 256).map((x) => Math.fround(x)),
    );
    expect(vectors.map((v) => [...v])).to.deep.equal(expected);
  });

  it("sends at most 256 texts a request and keeps their order across requests", async () => {
    const all = texts(600);
    standin.reverseEmbeddings = true;
    const vectors = await embed(all);
    expect(
      embeddingRequests().map((r) => (r.body as { input: string[] }).input.length),
    ).to.deep.equal([256, 256, 88]);
    expect([inputsOf(0), inputsOf(1), inputsOf(2)].flat()).to.deep.equal(all);
    expect([...vectors[599]!]).to.deep.equal(
      standinEmbedding("passage 599", 256).map((x) => Math.fround(x)),
    );
    expect(vectors).to.have.lengthOf(600);
  });

  it("bounds the characters of a request, so long texts go in smaller batches", async () => {
    await embed(texts(20, 8_000));
    expect(
      embeddingRequests().map((r) => (r.body as { input: string[] }).input.length),
    ).to.deep.equal([12, 8]);
  });

  it("answers no texts with no vectors, without calling OpenAI", async () => {
    expect(await embed([])).to.deep.equal([]);
    expect(standin.requests).to.deep.equal([]);
  });

  it("names OPENAI_API_KEY when no key is configured, without calling OpenAI", async () => {
    const noKey = await host.instance(
      "voice-provider",
      "openai",
      { baseUrl: standin.baseUrl },
      "global",
    );
    const error = await unavailable(noKey.embed!(["Opening hours"]));
    expect(error.message).to.equal("no OpenAI API key is configured (set OPENAI_API_KEY)");
    expect(standin.requests).to.deep.equal([]);
  });

  it("reports a refused key (401) as the plugin's error, without the key", async () => {
    const wrongKey = "sk-wrong-key-0123456789abcdef";
    const error = await unavailable(embed(["Opening hours"], undefined, { apiKey: wrongKey }));
    expect(error.message).to.equal(
      "the embeddings request failed: OpenAI answered 401 Unauthorized: the API key was " +
        "refused (check OPENAI_API_KEY)",
    );
    expect(error.message).to.not.include(wrongKey.slice(-4));
  });

  it("reports a rate limit (429) with OpenAI's words", async () => {
    standin.behaviour = "rate-limit";
    const error = await unavailable(embed(["Opening hours"]));
    expect(error.message).to.match(
      /^the embeddings request failed: OpenAI answered 429 Too Many Requests: Rate limit reached/,
    );
  });

  it("reports a server error (500) with OpenAI's words", async () => {
    standin.behaviour = "fail";
    const error = await unavailable(embed(["Opening hours"]));
    expect(error.message).to.equal(
      "the embeddings request failed: OpenAI answered 500 Internal Server Error: " +
        "The server had an error while processing your request. Sorry about that!",
    );
  });

  it("passes on why OpenAI refused the input, such as an empty text", async () => {
    const error = await unavailable(embed(["Opening hours", ""]));
    expect(error.message).to.match(
      /^the embeddings request failed: OpenAI answered 400 Bad Request: '\$\.input' is invalid/,
    );
  });

  it("refuses an answer that is not JSON", async () => {
    standin.behaviour = "not-json";
    const error = await unavailable(embed(["Opening hours"]));
    expect(error.message).to.equal(
      "the embeddings request failed: OpenAI answered 200 OK with a body that is not JSON",
    );
  });

  it("stops waiting when the caller aborts, and closes the connection", async () => {
    standin.behaviour = "hang";
    const controller = new AbortController();
    const call = embed(["Opening hours"], controller.signal);
    const gone = standin.clientGone();
    await standin.nextRequest();
    controller.abort();
    const error = await unavailable(call);
    expect(error.message).to.equal(
      "the embeddings request failed: the request to OpenAI was cancelled",
    );
    expect((await gone).path).to.equal(EMBEDDINGS_PATH);
  });

  it("sends nothing once the caller has aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await unavailable(embed(texts(300), controller.signal));
    expect(error.message).to.equal(
      "the embeddings request failed: the request to OpenAI was cancelled",
    );
    expect(embeddingRequests()).to.deep.equal([]);
  });

  it("gives up on its own after timeoutMs", async () => {
    standin.behaviour = "hang";
    const error = await unavailable(embed(["Opening hours"], undefined, { timeoutMs: 50 }));
    expect(error.message).to.equal(
      "the embeddings request failed: OpenAI did not answer within 50 ms",
    );
  });

  it("goes through the host's guarded fetch", async () => {
    const guarded = testPluginHost({ allowPrivateNetworks: false });
    try {
      await guarded.loadBuiltins(path.resolve("plugins"));
      const instance = await guarded.instance(
        "voice-provider",
        "openai",
        { baseUrl: standin.baseUrl, apiKey: standin.apiKey },
        "global",
      );
      const error = await unavailable(instance.embed!(["Opening hours"]));
      expect(error.message).to.match(
        /^the embeddings request failed: outbound request to 127\.0\.0\.1 refused/,
      );
      expect(standin.requests).to.deep.equal([]);
    } finally {
      await guarded.close();
    }
  });
});
