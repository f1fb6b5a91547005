/**
 * The OpenAI voice provider's config: built from the OPENAI_* settings (or another provider's from
 * SITEVOICE_PLUGIN_CONFIG), and checked against the plugin's schema before the provider is made.
 */
import { expect } from "chai";
import type { PluginHost } from "../../core/host/plugin-host.ts";
import { loadSettings } from "../../core/settings.ts";
import { voiceProviderConfig } from "../../core/widget/voice-provider-config.ts";
import { startOpenAiStandin, type OpenAiStandin } from "../../test/helpers/openai-standin.ts";
import {
  hostWithBuiltins,
  sessionRequest,
  signal,
  unavailable,
} from "./provider-openai-fixtures.ts";

describe("provider-openai", () => {
  let standin: OpenAiStandin;
  let host: PluginHost;

  beforeEach(async () => {
    standin = await startOpenAiStandin();
    host = await hostWithBuiltins();
  });

  afterEach(async () => {
    await host.close();
    await standin.close();
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

    it("reports itself unavailable without a key, naming OPENAI_API_KEY", async () => {
      const { type, config } = voiceProviderConfig(loadSettings({}));
      const instance = await host.instance("voice-provider", type, config, "global");
      expect(await instance.unavailable?.()).to.match(/OPENAI_API_KEY/);
    });

    it("reports nothing amiss with a key, without calling OpenAI", async () => {
      const settings = loadSettings({
        OPENAI_API_KEY: "sk-not-checked",
        OPENAI_BASE_URL: standin.baseUrl,
      });
      const { type, config } = voiceProviderConfig(settings);
      const instance = await host.instance("voice-provider", type, config, "global");
      expect(await instance.unavailable?.()).to.equal(undefined);
      expect(standin.requests).to.deep.equal([]);
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
