/**
 * The built-in OpenAI voice provider, through the host against the OpenAI stand-in: the session it
 * mints, the request behind it, each failure reported without the key, and the guarded fetch.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect } from "chai";
import type { PluginHost, VoiceProvider } from "sitevoice";
import { testPluginHost } from "sitevoice/testing";
import {
  CLIENT_SECRETS_PATH,
  startOpenAiStandin,
  type OpenAiStandin,
} from "../../test/helpers/openai-standin.ts";
import {
  hostWithBuiltins,
  sessionRequest,
  signal,
  unavailable,
} from "./provider-openai-fixtures.ts";

describe("provider-openai", () => {
  let standin: OpenAiStandin;
  let host: PluginHost;

  /** The provider for `config` (the stand-in's URL and key unless overridden), via the host. */
  const provider = (config: Record<string, unknown> = {}): Promise<VoiceProvider> =>
    host.instance(
      "voice-provider",
      "openai",
      { baseUrl: standin.baseUrl, apiKey: standin.apiKey, ...config },
      "global",
    );

  beforeEach(async () => {
    standin = await startOpenAiStandin();
    host = await hostWithBuiltins();
  });

  afterEach(async () => {
    await host.close();
    await standin.close();
  });

  it("is a built-in voice provider of type openai", () => {
    expect(host.find("voice-provider", "openai")).to.include({
      name: "provider-openai",
      source: "builtin:provider-openai",
    });
  });

  it("mints a session and maps OpenAI's client secret to the widget's token", async () => {
    const session = await (
      await provider()
    ).createSession(sessionRequest(), {
      signal: signal(),
    });
    const [request] = standin.requests;
    expect(request?.status).to.equal(200);
    const answer = request?.answer as { value: string; expires_at: number };
    expect(answer.value).to.match(/^ek_/);
    expect(session).to.deep.equal({
      ephemeral_token: {
        value: answer.value,
        expires_at: new Date(answer.expires_at * 1000).toISOString(),
      },
      provider: {
        name: "openai",
        model: "gpt-realtime",
        voice: "shimmer",
        connect_url: `${standin.baseUrl}/v1/realtime/calls`,
      },
    });
  });

  it("sends the key and a realtime session with model, voice, prompt and tools", async () => {
    const request = sessionRequest();
    await (
      await provider({ model: "gpt-realtime-mini" })
    ).createSession(request, {
      signal: signal(),
    });
    expect(standin.requests).to.have.lengthOf(1);
    const [recorded] = standin.requests;
    expect(recorded?.method).to.equal("POST");
    expect(recorded?.path).to.equal(CLIENT_SECRETS_PATH);
    expect(recorded?.headers.authorization).to.equal(`Bearer ${standin.apiKey}`);
    expect(recorded?.headers["content-type"]).to.match(/^application\/json/);
    expect(recorded?.body).to.deep.equal({
      expires_after: { anchor: "created_at", seconds: 60 },
      session: {
        type: "realtime",
        model: "gpt-realtime-mini",
        instructions: request.instructions,
        audio: {
          input: { transcription: { model: "gpt-4o-mini-transcribe", language: "en" } },
          output: { voice: "shimmer" },
        },
        tools: request.tools,
      },
    });
    const names = request.tools.map((t) => t.name);
    expect(names).to.deep.equal([
      "search_database",
      "submit_lead",
      "request_callback",
      "scroll_to",
    ]);
  });

  it("transcribes a voice session's visitor in the site language's primary subtag", async () => {
    await (
      await provider()
    ).createSession(sessionRequest({ language: "de-DE" }), {
      signal: signal(),
    });
    const { session } = standin.requests[0]?.body as { session: Record<string, unknown> };
    expect(session.audio).to.deep.equal({
      input: { transcription: { model: "gpt-4o-mini-transcribe", language: "de" } },
      output: { voice: "shimmer" },
    });
  });

  it("leaves the transcription's language to OpenAI for a tag without an ISO 639-1 code", async () => {
    await (
      await provider()
    ).createSession(sessionRequest({ language: "fil-PH" }), {
      signal: signal(),
    });
    const { session } = standin.requests[0]?.body as { session: Record<string, unknown> };
    expect(session.audio).to.deep.equal({
      input: { transcription: { model: "gpt-4o-mini-transcribe" } },
      output: { voice: "shimmer" },
    });
  });

  it("asks a text session for text output only, without input transcription", async () => {
    const request = sessionRequest({ mode: "text" });
    await (await provider()).createSession(request, { signal: signal() });
    const [recorded] = standin.requests;
    expect(recorded?.status).to.equal(200);
    expect(recorded?.body).to.deep.equal({
      expires_after: { anchor: "created_at", seconds: 60 },
      session: {
        type: "realtime",
        model: "gpt-realtime",
        instructions: request.instructions,
        output_modalities: ["text"],
        audio: { output: { voice: "shimmer" } },
        tools: request.tools,
      },
    });
  });

  it("keeps a base URL's trailing slash out of both URLs", async () => {
    const session = await (
      await provider({ baseUrl: `${standin.baseUrl}/` })
    ).createSession(sessionRequest(), { signal: signal() });
    expect(standin.requests[0]?.path).to.equal(CLIENT_SECRETS_PATH);
    expect(session.provider.connect_url).to.equal(`${standin.baseUrl}/v1/realtime/calls`);
  });

  it("names OPENAI_API_KEY when no key is configured, without calling OpenAI", async () => {
    const config = { baseUrl: standin.baseUrl };
    const noKey = await host.instance("voice-provider", "openai", config, "global");
    const error = await unavailable(noKey.createSession(sessionRequest(), { signal: signal() }));
    expect(error.message).to.equal("no OpenAI API key is configured (set OPENAI_API_KEY)");
    expect(standin.requests).to.deep.equal([]);
  });

  it("reports a refused key as a failure of the provider, without the key", async () => {
    const wrongKey = "sk-wrong-key-0123456789abcdef";
    const error = await unavailable(
      (await provider({ apiKey: wrongKey })).createSession(sessionRequest(), {
        signal: signal(),
      }),
    );
    expect(standin.requests[0]?.status).to.equal(401);
    expect(error.message).to.match(/^the voice provider failed: OpenAI answered 401\b/);
    expect(error.message).to.include("OPENAI_API_KEY");
    expect(error.message).to.not.include(wrongKey);
    expect(error.message).to.not.include(wrongKey.slice(-4));
  });

  it("reports OpenAI's own words when it fails", async () => {
    standin.behaviour = "fail";
    const error = await unavailable(
      (await provider()).createSession(sessionRequest(), { signal: signal() }),
    );
    expect(error.message).to.equal(
      "the voice provider failed: OpenAI answered 500 Internal Server Error: " +
        "The server had an error while processing your request. Sorry about that!",
    );
    expect(error.message).to.not.include(standin.apiKey);
  });

  it("passes on why OpenAI refused the session, such as a voice it does not have", async () => {
    const error = await unavailable(
      (await provider()).createSession(sessionRequest({ voice: "fable" }), { signal: signal() }),
    );
    expect(standin.requests[0]?.status).to.equal(400);
    expect(error.message).to.match(
      /^the voice provider failed: OpenAI answered 400 Bad Request: Invalid value: 'fable'\./,
    );
  });

  it("stops waiting when the caller gives up, and closes the connection", async () => {
    standin.behaviour = "hang";
    const controller = new AbortController();
    const call = (await provider()).createSession(sessionRequest(), {
      signal: controller.signal,
    });
    const gone = standin.clientGone();
    await standin.nextRequest();
    controller.abort();
    const error = await unavailable(call);
    expect(error.message).to.equal(
      "the voice provider failed: the request to OpenAI was cancelled",
    );
    expect((await gone).path).to.equal(CLIENT_SECRETS_PATH);
  });

  it("gives up on its own after timeoutMs", async () => {
    standin.behaviour = "hang";
    const error = await unavailable(
      (await provider({ timeoutMs: 50 })).createSession(sessionRequest(), { signal: signal() }),
    );
    expect(error.message).to.match(/^the voice provider failed: OpenAI did not answer within /);
  });

  for (const [behaviour, reason] of [
    ["not-json", "OpenAI answered 200 OK with a body that is not JSON"],
    ["no-secret", "OpenAI's answer holds no client secret (value)"],
  ] as const) {
    it(`refuses a malformed answer (${behaviour})`, async () => {
      standin.behaviour = behaviour;
      const error = await unavailable(
        (await provider()).createSession(sessionRequest(), { signal: signal() }),
      );
      expect(error.message).to.equal(`the voice provider failed: ${reason}`);
    });
  }

  it("reports an unreachable API by host and error code", async () => {
    const closed = http.createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await unavailable(
      (await provider({ baseUrl: `http://127.0.0.1:${port}` })).createSession(sessionRequest(), {
        signal: signal(),
      }),
    );
    expect(error.message).to.equal(
      `the voice provider failed: OpenAI at 127.0.0.1:${port} could not be reached`,
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
      const error = await unavailable(
        instance.createSession(sessionRequest(), { signal: signal() }),
      );
      expect(error.message).to.match(
        /^the voice provider failed: outbound request to 127\.0\.0\.1 refused/,
      );
      expect(standin.requests).to.deep.equal([]);
    } finally {
      await guarded.close();
    }
  });
});
