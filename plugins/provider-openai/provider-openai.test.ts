import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect } from "chai";
import { pino } from "pino";
import { PluginCallError } from "../../core/host/plugin-errors.ts";
import { PluginHost } from "../../core/host/plugin-host.ts";
import type { VoiceProvider, VoiceSessionRequest } from "../../core/host/plugin.ts";
import { OutboundPolicy } from "../../core/security/outbound-policy.ts";
import { loadSettings } from "../../core/settings.ts";
import type { SiteConfig } from "../../core/sites/site-types.ts";
import { readSiteFile } from "../../core/sites/yaml/site-file.ts";
import { validateBody } from "../../core/validation/schema-validator.ts";
import { voiceProviderConfig } from "../../core/widget/voice-provider-config.ts";
import { buildVoiceTools } from "../../core/widget/voice-tools.ts";
import {
  CLIENT_SECRETS_PATH,
  startOpenAiStandin,
  type OpenAiStandin,
} from "../../test/helpers/openai-standin.ts";

const logger = pino({ level: "silent" });

function dentalSite(): SiteConfig {
  const parsed = readSiteFile(path.resolve("sites", "bright-smiles-dental.yaml"));
  return validateBody<SiteConfig>("site-create", parsed.data);
}

/** What the token endpoint asks for: the example clinic's voice, prompt and tools. */
function sessionRequest(overrides: Partial<VoiceSessionRequest> = {}): VoiceSessionRequest {
  const site = dentalSite();
  return {
    site_id: site.site_id,
    voice: site.voice,
    language: site.language,
    instructions: `You are the voice assistant of ${site.business_name}. ${site.personality}`,
    tools: buildVoiceTools(site, { sectionIds: ["services", "contact"] }),
    expiresInSeconds: 60,
    ...overrides,
  };
}

/** The VoiceProviderUnavailable a rejected call carries, after checking how the host wrapped it. */
async function unavailable(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(PluginCallError);
    // By name, as the service checks it: the builtin is imported by file URL, which under tsx
    // can give it its own copy of core/host/plugin.ts, so `instanceof` is not reliable.
    const cause = (error as PluginCallError).cause as Error;
    expect(cause.name).to.equal("VoiceProviderUnavailable");
    return cause;
  }
  throw new Error("expected the call to be rejected");
}

const signal = () => new AbortController().signal;

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
    // The stand-in is on 127.0.0.1, which the production guard refuses.
    host = new PluginHost({
      logger,
      outbound: new OutboundPolicy({ allowPrivateNetworks: true }),
    });
    await host.loadBuiltins(path.resolve("plugins"));
    host.start();
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
        audio: { output: { voice: "shimmer" } },
        tools: request.tools,
      },
    });
    const names = request.tools.map((t) => t.name);
    expect(names).to.deep.equal(["search_database", "submit_lead", "scroll_to"]);
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
    const guarded = new PluginHost({
      logger,
      outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
    });
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

  describe("config from settings", () => {
    it("builds a config the plugin accepts from the OPENAI_* settings", async () => {
      const settings = loadSettings({
        OPENAI_API_KEY: standin.apiKey,
        OPENAI_BASE_URL: standin.baseUrl,
        OPENAI_REALTIME_MODEL: "gpt-realtime-mini",
      });
      const { type, config } = voiceProviderConfig(settings);
      expect(type).to.equal("openai");
      expect(config).to.deep.equal({
        apiKey: standin.apiKey,
        baseUrl: standin.baseUrl,
        model: "gpt-realtime-mini",
      });
      expect(host.validateConfig("voice-provider", type, config)).to.deep.equal([]);
      const instance = await host.instance("voice-provider", type, config, "global");
      const session = await instance.createSession(sessionRequest(), { signal: signal() });
      expect(session.provider.model).to.equal("gpt-realtime-mini");
    });

    it("leaves the key out when OPENAI_API_KEY is unset; sessions name it", async () => {
      const { type, config } = voiceProviderConfig(loadSettings({}));
      expect(config).to.deep.equal({ baseUrl: "https://api.openai.com", model: "gpt-realtime" });
      expect(host.validateConfig("voice-provider", type, config)).to.deep.equal([]);
      const instance = await host.instance("voice-provider", type, config, "global");
      const error = await unavailable(
        instance.createSession(sessionRequest(), { signal: signal() }),
      );
      expect(error.message).to.include("OPENAI_API_KEY");
    });

    it("takes another provider's config from SITEVOICE_PLUGIN_CONFIG", () => {
      const settings = loadSettings({
        SITEVOICE_VOICE_PROVIDER: "acme-voice",
        SITEVOICE_PLUGIN_CONFIG: '{"acme-voice": {"region": "eu"}}',
      });
      expect(voiceProviderConfig(settings)).to.deep.equal({
        type: "acme-voice",
        config: { region: "eu" },
      });
    });

    it("refuses a config of the wrong shape before creating the provider", () => {
      const issues = host.validateConfig("voice-provider", "openai", {
        baseUrl: "api.openai.com",
        extra: 1,
      });
      expect([...new Set(issues.map((i) => i.field))].sort()).to.deep.equal([
        "config.baseUrl",
        "config.extra",
      ]);
    });
  });
});

describe("OpenAI client-secret stand-in", () => {
  let standin: OpenAiStandin;

  beforeEach(async () => {
    standin = await startOpenAiStandin();
  });

  afterEach(() => standin.close());

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${standin.baseUrl}${CLIENT_SECRETS_PATH}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${standin.apiKey}`,
        "content-type": "application/json",
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as { error: Record<string, unknown> },
    };
  };

  const valid = () => ({
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

  it("answers a well-formed request with a client secret and the effective session", async () => {
    const { status, body } = await post(valid());
    expect(status).to.equal(200);
    expect(body).to.include.keys("value", "expires_at", "session");
    expect(body).to.have.nested.property("session.audio.output.voice", "marin");
  });

  describe("refuses what OpenAI refuses, in OpenAI's error shape", () => {
    const beta = valid() as { session: Record<string, unknown> };
    beta.session.voice = "alloy";
    const noInstructions = valid() as { session: Record<string, unknown> };
    noInstructions.session.instructions = "";
    const longLived = valid();
    longLived.expires_after.seconds = 86_400;
    const badTool = valid() as { session: { tools: Record<string, unknown>[] } };
    badTool.session.tools[0]!.parameters = { type: "object", properties: { x: { type: 5 } } };
    const cases: [string, unknown, Record<string, string>, number, string | null][] = [
      [
        "a wrong key",
        valid(),
        { authorization: "Bearer sk-nope-0123456789" },
        401,
        "invalid_api_key",
      ],
      ["a body sent as text/plain", valid(), { "content-type": "text/plain" }, 400, null],
      ["a body that is not JSON", "{not json", {}, 400, null],
      ["the beta session shape (session.voice)", beta, {}, 400, "unknown_parameter"],
      ["empty instructions", noInstructions, {}, 400, "empty_string"],
      ["a secret that lives too long", longLived, {}, 400, "integer_above_max_value"],
      ["a tool whose parameters are not a schema", badTool, {}, 400, "invalid_function_parameters"],
    ];
    for (const [what, body, headers, status, code] of cases) {
      it(`${status} ${code ?? "(no code)"} for ${what}`, async () => {
        const answer = await post(body, headers);
        expect(answer.status, JSON.stringify(body)).to.equal(status);
        expect(Object.keys(answer.body.error).sort()).to.deep.equal([
          "code",
          "message",
          "param",
          "type",
        ]);
        expect(answer.body.error.code).to.equal(code);
        // The stand-in records the request with the status it answered.
        expect(standin.requests.map((r) => r.status)).to.deep.equal([status]);
      });
    }
  });
});
