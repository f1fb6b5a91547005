/**
 * Which `embed` the knowledge uses: none unless the operator set SITEVOICE_EMBEDDINGS (then
 * nothing reaches OpenAI), the built-in OpenAI provider's with the OPENAI_* settings when it
 * names `openai`, and a provider's answer checked before it can reach an index.
 */
import path from "node:path";
import { expect } from "chai";
import { testPluginHost } from "../../host/testing/test-host.ts";
import { definePlugin } from "../../host/plugin.ts";
import type { PluginHost } from "../../host/plugin-host.ts";
import { loadSettings } from "../../settings.ts";
import { EMBEDDINGS_PATH } from "../../../test/helpers/openai-embeddings.ts";
import { startOpenAiStandin, type OpenAiStandin } from "../../../test/helpers/openai-standin.ts";
import { knowledgeEmbedder } from "./knowledge-embedder.ts";
import { VectorIndex } from "./vector-index.ts";
import { meaningSearch } from "./meaning-search.ts";
import { pino } from "pino";

/** A voice provider whose `embed` answers what `answer` gives, or none without one. */
const fakeProvider = (name: string, answer?: (texts: string[]) => unknown) =>
  definePlugin({
    kind: "voice-provider",
    name,
    apiVersion: 1,
    type: name,
    create: () => ({
      createSession: () => Promise.reject(new Error("not in this test")),
      // A misbehaving provider's answer, past the types as a JavaScript plugin's would be.
      ...(answer === undefined
        ? {}
        : { embed: async (texts: string[]) => answer(texts) as Float32Array[] }),
    }),
  });

const rejection = async (work: Promise<unknown>): Promise<Error> => {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
};

describe("knowledge embedder", () => {
  let standin: OpenAiStandin;
  let host: PluginHost;

  const settings = (env: Record<string, string> = {}) =>
    loadSettings({ OPENAI_API_KEY: standin.apiKey, OPENAI_BASE_URL: standin.baseUrl, ...env });
  const embeddingRequests = () => standin.requests.filter((r) => r.path === EMBEDDINGS_PATH);

  before(async () => {
    host = testPluginHost();
    await host.loadBuiltins(path.resolve("plugins"));
    host.register(fakeProvider("mute"), "test");
    host.register(
      fakeProvider("short", () => [Float32Array.of(1, 0)]),
      "test",
    );
    host.register(
      fakeProvider("ragged", (texts) => texts.map((_, i) => new Float32Array(i + 1).fill(1))),
      "test",
    );
    host.register(
      fakeProvider("plain", (texts) => texts.map(() => [1, 0])),
      "test",
    );
    host.start();
  });

  after(() => host.close());

  beforeEach(async () => {
    standin = await startOpenAiStandin();
  });

  afterEach(() => standin.close());

  it("is off without SITEVOICE_EMBEDDINGS", () => {
    expect(knowledgeEmbedder({ plugins: host, settings: settings() })).to.equal(undefined);
  });

  it("sends OpenAI nothing while off, even with a key and vectors to search", async () => {
    const embed = knowledgeEmbedder({ plugins: host, settings: settings() })?.embed;
    const ranking = await meaningSearch({
      query: "Are you open on Sundays?",
      limit: 3,
      index: VectorIndex.build(["a"], [Float32Array.of(1, 0)]),
      embed,
      logger: pino({ level: "silent" }),
    });
    expect(ranking).to.equal(undefined);
    expect(standin.requests).to.deep.equal([]);
  });

  it("embeds with OpenAI's provider, its key and base URL, when set to openai", async () => {
    const embed = knowledgeEmbedder({
      plugins: host,
      settings: settings({ SITEVOICE_EMBEDDINGS: "openai" }),
    })?.embed;
    const vectors = await embed!(["Are you open on Sundays?", "Opening hours"]);
    expect(vectors.map((v) => v.length)).to.deep.equal([256, 256]);
    expect(embeddingRequests().map((r) => r.headers.authorization)).to.deep.equal([
      `Bearer ${standin.apiKey}`,
    ]);
  });

  it("names the provider whose vectors it makes, to store with them", () => {
    const embedder = knowledgeEmbedder({
      plugins: host,
      settings: settings({ SITEVOICE_EMBEDDINGS: "openai" }),
    });
    expect(embedder?.provider).to.equal("openai");
  });

  it("embeds no texts without asking the provider", async () => {
    const embed = knowledgeEmbedder({
      plugins: host,
      settings: settings({ SITEVOICE_EMBEDDINGS: "openai" }),
    })?.embed;
    expect(await embed!([])).to.deep.equal([]);
    expect(standin.requests).to.deep.equal([]);
  });

  it("refuses a provider that cannot embed", async () => {
    const embed = knowledgeEmbedder({
      plugins: host,
      settings: settings({ SITEVOICE_EMBEDDINGS: "mute" }),
    })?.embed;
    expect((await rejection(embed!(["a"]))).message).to.equal(
      'the voice provider "mute" (SITEVOICE_EMBEDDINGS) cannot embed texts',
    );
  });

  it("refuses a provider that is not installed", async () => {
    const embed = knowledgeEmbedder({
      plugins: host,
      settings: settings({ SITEVOICE_EMBEDDINGS: "absent" }),
    })?.embed;
    expect((await rejection(embed!(["a"]))).message).to.match(/absent/);
  });

  it("refuses fewer vectors than texts", async () => {
    const embed = knowledgeEmbedder({
      plugins: host,
      settings: settings({ SITEVOICE_EMBEDDINGS: "short" }),
    })?.embed;
    expect((await rejection(embed!(["a", "b"]))).message).to.equal(
      'the voice provider "short" answered 1 vectors for 2 texts',
    );
  });

  it("refuses vectors of different lengths", async () => {
    const embed = knowledgeEmbedder({
      plugins: host,
      settings: settings({ SITEVOICE_EMBEDDINGS: "ragged" }),
    })?.embed;
    expect((await rejection(embed!(["a", "b"]))).message).to.equal(
      'the voice provider "ragged" answered vectors that are not Float32Arrays of one length',
    );
  });

  it("refuses vectors that are not Float32Arrays", async () => {
    const embed = knowledgeEmbedder({
      plugins: host,
      settings: settings({ SITEVOICE_EMBEDDINGS: "plain" }),
    })?.embed;
    expect((await rejection(embed!(["a"]))).message).to.equal(
      'the voice provider "plain" answered vectors that are not Float32Arrays of one length',
    );
  });
});
