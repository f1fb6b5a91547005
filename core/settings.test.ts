import path from "node:path";
import { expect } from "chai";
import { loadSettings, SettingsError } from "./settings.ts";

const refused = (env: Record<string, string>, variable: string) => {
  expect(() => loadSettings(env)).to.throw(
    SettingsError,
    new RegExp(`^invalid setting ${variable}: `),
  );
};

describe("settings", () => {
  it("serves a newcomer with defaults: port 8787 and a SQLite file under ./data", () => {
    const settings = loadSettings({});
    expect(settings.port).to.equal(8787);
    expect(settings.database).to.deep.equal({
      client: "sqlite",
      url: `sqlite:${path.resolve("data", "sitevoice.db")}`,
      filename: path.resolve("data", "sitevoice.db"),
      privateDir: path.resolve("data"),
    });
    expect(settings.redisUrl).to.equal(undefined);
    expect(settings.logLevel).to.equal("info");
    expect(settings.publicBaseUrl).to.equal("http://localhost:8787");
    expect(settings.allowPrivateNetworks).to.equal(false);
    expect(Object.isFrozen(settings)).to.equal(true);
  });

  it("reads each database kind from DATABASE_URL", () => {
    expect(loadSettings({ DATABASE_URL: "postgres://u@h/db" }).database.client).to.equal(
      "postgres",
    );
    expect(loadSettings({ DATABASE_URL: "mariadb://root@h/db" }).database).to.deep.equal({
      client: "mysql",
      url: "mysql://root@h/db",
    });
    expect(loadSettings({ DATABASE_URL: "sqlite::memory:" }).database.filename).to.equal(
      ":memory:",
    );
  });

  it("parses plugins, plugin config and the master key", () => {
    const key = Buffer.alloc(32, 7);
    const settings = loadSettings({
      SITEVOICE_PLUGINS: "sitevoice-adapter-example, @acme/sitevoice-airtable",
      SITEVOICE_PLUGIN_CONFIG: '{"sink-log": {"level": "info"}}',
      SITEVOICE_MASTER_KEY: key.toString("base64"),
    });
    expect(settings.plugins).to.deep.equal([
      "sitevoice-adapter-example",
      "@acme/sitevoice-airtable",
    ]);
    expect(settings.pluginConfig).to.deep.equal({ "sink-log": { level: "info" } });
    expect(settings.masterKey?.equals(key)).to.equal(true);
    const old = loadSettings({
      SITEVOICE_OLD_MASTER_KEYS: `${"a".repeat(64)}, ${key.toString("base64")}`,
    });
    expect(old.oldMasterKeys.map((k) => k.toString("hex"))).to.deep.equal([
      "a".repeat(64),
      key.toString("hex"),
    ]);
  });

  it("allows private networks for outbound requests only when told to", () => {
    expect(
      loadSettings({ SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true" }).allowPrivateNetworks,
    ).to.equal(true);
    expect(
      loadSettings({ SITEVOICE_ALLOW_PRIVATE_NETWORKS: "FALSE" }).allowPrivateNetworks,
    ).to.equal(false);
  });

  it("uses OpenAI as the voice provider, with its public API and no key unless one is set", () => {
    const defaults = loadSettings({});
    expect(defaults.voiceProvider).to.equal("openai");
    expect(defaults.openai).to.deep.equal({
      apiKey: undefined,
      baseUrl: "https://api.openai.com",
      realtimeModel: "gpt-realtime",
    });
    const set = loadSettings({
      OPENAI_API_KEY: " sk-test-123 ",
      OPENAI_BASE_URL: "http://127.0.0.1:4010/",
      OPENAI_REALTIME_MODEL: "gpt-realtime-mini",
      SITEVOICE_VOICE_PROVIDER: "@acme/sitevoice-voice",
    });
    expect(set.openai).to.deep.equal({
      apiKey: "sk-test-123",
      baseUrl: "http://127.0.0.1:4010",
      realtimeModel: "gpt-realtime-mini",
    });
    expect(set.voiceProvider).to.equal("@acme/sitevoice-voice");
    expect(loadSettings({ OPENAI_API_KEY: "  " }).openai.apiKey).to.equal(undefined);
  });

  it("refuses each bad value naming the variable", () => {
    refused({ PORT: "65536" }, "PORT");
    refused({ PORT: "8787x" }, "PORT");
    refused({ DATABASE_URL: "oracle://x" }, "DATABASE_URL");
    refused({ DATABASE_URL: "not a url" }, "DATABASE_URL");
    refused({ REDIS_URL: "http://127.0.0.1:6379" }, "REDIS_URL");
    refused({ SITEVOICE_MASTER_KEY: "short" }, "SITEVOICE_MASTER_KEY");
    refused({ SITEVOICE_OLD_MASTER_KEYS: `${"a".repeat(64)},short` }, "SITEVOICE_OLD_MASTER_KEYS");
    refused({ LOG_LEVEL: "loud" }, "LOG_LEVEL");
    refused({ PUBLIC_BASE_URL: "ftp://x" }, "PUBLIC_BASE_URL");
    refused({ SITEVOICE_PLUGINS: "Bad Name" }, "SITEVOICE_PLUGINS");
    refused({ SITEVOICE_PLUGIN_CONFIG: "[1]" }, "SITEVOICE_PLUGIN_CONFIG");
    refused({ SITEVOICE_DEFAULT_PLAN: "gold" }, "SITEVOICE_DEFAULT_PLAN");
    refused({ SITEVOICE_ALLOW_PRIVATE_NETWORKS: "yes" }, "SITEVOICE_ALLOW_PRIVATE_NETWORKS");
    refused({ OPENAI_BASE_URL: "api.openai.com" }, "OPENAI_BASE_URL");
    refused({ OPENAI_BASE_URL: "ws://api.openai.com" }, "OPENAI_BASE_URL");
    refused({ SITEVOICE_VOICE_PROVIDER: "Open AI" }, "SITEVOICE_VOICE_PROVIDER");
  });
});
