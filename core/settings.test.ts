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

  it("allows no private destination one by one unless SITEVOICE_OUTBOUND_ALLOW says so", () => {
    const quiet = { SITEVOICE_DEMO: "off" };
    expect(loadSettings(quiet).outboundAllow).to.deep.equal([]);
    expect(loadSettings({ ...quiet, SITEVOICE_OUTBOUND_ALLOW: " , " }).outboundAllow).to.deep.equal(
      [],
    );
  });

  it("turns the demo on for the embedded default only, and lets it reach its own port", () => {
    const embedded = loadSettings({ PORT: "9000" });
    expect(embedded.demo).to.equal(true);
    expect(embedded.outboundAllow).to.deep.equal([
      { kind: "host", host: "localhost", port: 9000 },
      { kind: "network", address: "127.0.0.1", prefixLength: 32, port: 9000 },
    ]);
    const postgres = loadSettings({ DATABASE_URL: "postgres://db/x" });
    expect(postgres.demo).to.equal(false);
    expect(postgres.outboundAllow).to.deep.equal([]);
    expect(loadSettings({ DATABASE_URL: "postgres://db/x", SITEVOICE_DEMO: "on" }).demo).to.equal(
      true,
    );
    expect(loadSettings({ SITEVOICE_DEMO: "off" }).demo).to.equal(false);
    // PORT=0 picks a port only when listening: the demo has no own port to allow then.
    expect(loadSettings({ PORT: "0" }).outboundAllow).to.deep.equal([]);
    expect(() => loadSettings({ SITEVOICE_DEMO: "maybe" })).to.throw(/SITEVOICE_DEMO/);
  });

  it("runs the job processor unless SITEVOICE_JOBS is off", () => {
    expect(loadSettings({}).jobs).to.equal(true);
    expect(loadSettings({ SITEVOICE_JOBS: "on" }).jobs).to.equal(true);
    expect(loadSettings({ SITEVOICE_JOBS: "off" }).jobs).to.equal(false);
    refused({ SITEVOICE_JOBS: "sometimes" }, "SITEVOICE_JOBS");
  });

  it("polls for due jobs every SITEVOICE_JOBS_POLL_MS, 100 to 60000", () => {
    expect(loadSettings({}).jobsPollMs).to.equal(5_000);
    expect(loadSettings({ SITEVOICE_JOBS_POLL_MS: "250" }).jobsPollMs).to.equal(250);
    for (const bad of ["99", "60001", "1.5", "soon"]) {
      refused({ SITEVOICE_JOBS_POLL_MS: bad }, "SITEVOICE_JOBS_POLL_MS");
    }
  });

  it("holds SITEVOICE_CACHE_KNOWLEDGE_MB megabytes of search indexes, 1 to 65536, 256 by default", () => {
    expect(loadSettings({}).caches.knowledgeMb).to.equal(256);
    expect(loadSettings({ SITEVOICE_CACHE_KNOWLEDGE_MB: "32" }).caches.knowledgeMb).to.equal(32);
    for (const bad of ["0", "65537", "1.5", "lots"]) {
      refused({ SITEVOICE_CACHE_KNOWLEDGE_MB: bad }, "SITEVOICE_CACHE_KNOWLEDGE_MB");
    }
  });

  it("beats an idle analytics stream every SITEVOICE_STREAM_HEARTBEAT_MS, 100 to 60000", () => {
    expect(loadSettings({}).stream.heartbeatMs).to.equal(15_000);
    const set = loadSettings({ SITEVOICE_STREAM_HEARTBEAT_MS: "100" });
    expect(set.stream.heartbeatMs).to.equal(100);
    for (const bad of ["99", "60001", "0", "fast"]) {
      refused({ SITEVOICE_STREAM_HEARTBEAT_MS: bad }, "SITEVOICE_STREAM_HEARTBEAT_MS");
    }
  });

  it("checks controlled calls' limits every SITEVOICE_CALL_CHECK_MS, 100 to 60000", () => {
    expect(loadSettings({}).calls.checkMs).to.equal(30_000);
    expect(loadSettings({ SITEVOICE_CALL_CHECK_MS: "250" }).calls.checkMs).to.equal(250);
    for (const bad of ["99", "60001", "soon"]) {
      refused({ SITEVOICE_CALL_CHECK_MS: bad }, "SITEVOICE_CALL_CHECK_MS");
    }
  });

  it("prices gpt-realtime and gpt-realtime-mini by default; SITEVOICE_VOICE_PRICES adds or replaces models", () => {
    const defaults = loadSettings({}).voicePrices;
    expect(Object.keys(defaults)).to.deep.equal(["gpt-realtime", "gpt-realtime-mini"]);
    expect(defaults["gpt-realtime"]).to.deep.include({ audio_in: 32, audio_out: 64 });
    const all =
      "text_in=1,cached_text_in=0.1,text_out=2,audio_in=3,cached_audio_in=0.3,audio_out=6,image_in=1,cached_image_in=0.1";
    const prices = loadSettings({
      SITEVOICE_VOICE_PRICES: ` gpt-realtime:${all.replace("audio_in=3", "audio_in=30")} ; my-model:${all};`,
    }).voicePrices;
    expect(prices["gpt-realtime"]!.audio_in).to.equal(30);
    expect(prices["gpt-realtime-mini"]).to.deep.equal(defaults["gpt-realtime-mini"]);
    expect(prices["my-model"]).to.deep.include({ text_in: 1, audio_out: 6 });
    expect(Object.isFrozen(prices)).to.equal(true);
  });

  describe("refuses a bad SITEVOICE_VOICE_PRICES, naming the variable and the entry", () => {
    const bad: Record<string, RegExp> = {
      "gpt-realtime": /"gpt-realtime" is not model:kind=usd/,
      "m:audio_in=1":
        /m: text_in, cached_text_in, text_out, cached_audio_in, audio_out, image_in, cached_image_in missing$/,
      "m:audio_in=-1": /m: audio_in must be US dollars from 0 to 10000 \(got "-1"\)$/,
      "m:audio_in=lots": /m: audio_in must be US dollars/,
      "m:audio_in=1=2": /m: audio_in must be US dollars from 0 to 10000 \(got "1=2"\)$/,
      "m:audio_in": /m: audio_in must be US dollars/,
      "m:video_in=1": /m: "video_in" is not one of text_in, /,
      "bad model!:audio_in=1": /is not model:kind=usd/,
    };
    for (const [raw, why] of Object.entries(bad)) {
      it(`"${raw}"`, () => {
        expect(() => loadSettings({ SITEVOICE_VOICE_PRICES: raw })).to.throw(
          SettingsError,
          /^invalid setting SITEVOICE_VOICE_PRICES: /,
        );
        expect(() => loadSettings({ SITEVOICE_VOICE_PRICES: raw })).to.throw(why);
      });
    }
    it("a model given twice", () => {
      const all =
        "text_in=1,cached_text_in=0.1,text_out=2,audio_in=3,cached_audio_in=0.3,audio_out=6,image_in=1,cached_image_in=0.1";
      expect(() => loadSettings({ SITEVOICE_VOICE_PRICES: `m:${all};m:${all}` })).to.throw(
        /m is given twice$/,
      );
    });
  });

  it("embeds nothing unless SITEVOICE_EMBEDDINGS names a provider", () => {
    expect(loadSettings({}).embeddings).to.equal(undefined);
    expect(loadSettings({ SITEVOICE_EMBEDDINGS: "off" }).embeddings).to.equal(undefined);
    expect(loadSettings({ SITEVOICE_EMBEDDINGS: " openai " }).embeddings).to.equal("openai");
    expect(loadSettings({ SITEVOICE_EMBEDDINGS: "@acme/voice" }).embeddings).to.equal(
      "@acme/voice",
    );
  });

  it("refuses a SITEVOICE_EMBEDDINGS that is no plugin name", () => {
    refused({ SITEVOICE_EMBEDDINGS: "Open AI" }, "SITEVOICE_EMBEDDINGS");
  });

  it("names the crawler's contact URL and caps its pages", () => {
    const defaults = loadSettings({ PUBLIC_BASE_URL: "https://voice.example/" }).crawler;
    expect(defaults).to.deep.equal({ contactUrl: "https://voice.example/crawler", maxPages: 500 });
    const set = loadSettings({
      SITEVOICE_CRAWLER_CONTACT_URL: "https://example.org/about bots",
      SITEVOICE_CRAWL_MAX_PAGES: "10000",
    }).crawler;
    expect(set).to.deep.equal({ contactUrl: "https://example.org/about%20bots", maxPages: 10_000 });
    refused(
      { SITEVOICE_CRAWLER_CONTACT_URL: "ftp://example.org/" },
      "SITEVOICE_CRAWLER_CONTACT_URL",
    );
    for (const bad of ["0", "10001", "many"]) {
      refused({ SITEVOICE_CRAWL_MAX_PAGES: bad }, "SITEVOICE_CRAWL_MAX_PAGES");
    }
  });

  it("bundles 100, 1000, 5000 and 20000 minutes with free, starter, pro and business, none with enterprise", () => {
    expect(loadSettings({}).planMinutes).to.deep.equal({
      free: 100,
      starter: 1_000,
      pro: 5_000,
      business: 20_000,
    });
  });

  it("changes only the plans SITEVOICE_PLAN_MINUTES names; unlimited removes a bundle", () => {
    const settings = loadSettings({
      SITEVOICE_PLAN_MINUTES: " pro = 8000, enterprise=100000,business=unlimited ,",
    });
    expect(settings.planMinutes).to.deep.equal({
      free: 100,
      starter: 1_000,
      pro: 8_000,
      enterprise: 100_000,
    });
    expect(Object.isFrozen(settings.planMinutes)).to.equal(true);
  });

  describe("refuses a bad SITEVOICE_PLAN_MINUTES, naming the variable and the entry", () => {
    const bad: Record<string, RegExp> = {
      "gold=5": /must be one of free, starter, pro, business, enterprise \(got "gold"\)$/,
      pro: /"pro" is not plan=minutes/,
      "pro=0": /pro: must be whole minutes from 1 to 10000000, or unlimited \(got "0"\)$/,
      "pro=1.5": /pro: must be whole minutes .* \(got "1.5"\)$/,
      "pro=10000001": /pro: must be whole minutes .* \(got "10000001"\)$/,
      "pro=5,pro=6": /pro is given twice$/,
    };
    for (const [raw, why] of Object.entries(bad)) {
      it(`"${raw}"`, () => {
        expect(() => loadSettings({ SITEVOICE_PLAN_MINUTES: raw })).to.throw(
          SettingsError,
          /^invalid setting SITEVOICE_PLAN_MINUTES: /,
        );
        expect(() => loadSettings({ SITEVOICE_PLAN_MINUTES: raw })).to.throw(why);
      });
    }
  });

  it("parses SITEVOICE_OUTBOUND_ALLOW: names, host:port, addresses and CIDRs", () => {
    const settings = loadSettings({
      SITEVOICE_DEMO: "off",
      SITEVOICE_OUTBOUND_ALLOW:
        "DB.Internal, db.internal:5432, 10.0.0.5, 127.0.0.1:3306, [fd00::5]:5432, fd00::5," +
        " 10.0.0.0/8, fd00::/8, 172.16.0.0/12:5432, [fd00::]/16:6432, localhost",
    });
    expect(settings.outboundAllow).to.deep.equal([
      { kind: "host", host: "db.internal" },
      { kind: "host", host: "db.internal", port: 5432 },
      { kind: "network", address: "10.0.0.5", prefixLength: 32 },
      { kind: "network", address: "127.0.0.1", prefixLength: 32, port: 3306 },
      { kind: "network", address: "fd00::5", prefixLength: 128, port: 5432 },
      { kind: "network", address: "fd00::5", prefixLength: 128 },
      { kind: "network", address: "10.0.0.0", prefixLength: 8 },
      { kind: "network", address: "fd00::", prefixLength: 8 },
      { kind: "network", address: "172.16.0.0", prefixLength: 12, port: 5432 },
      { kind: "network", address: "fd00::", prefixLength: 16, port: 6432 },
      { kind: "host", host: "localhost" },
    ]);
  });

  describe("refuses a bad SITEVOICE_OUTBOUND_ALLOW entry, naming the variable and the entry", () => {
    const bad: Record<string, RegExp> = {
      "db internal": /is not a host name, host:port, IP address or CIDR$/,
      "*.example.com": /is not a host name, host:port, IP address or CIDR$/,
      "http://db.internal": /is a URL; give the host name \(and :port\) only$/,
      "10.0.0.256": /is not an IPv4 address or CIDR/,
      "10.0.0": /is not an IPv4 address or CIDR/,
      "10.0.0.0/33": /has a prefix length that is not 0 to 32$/,
      "fd00::/129": /has a prefix length that is not 0 to 128$/,
      "fd00::5:5432:": /is not an IPv6 address or CIDR/,
      "[fd00::5": /is not an IPv6 address or CIDR/,
      "[10.0.0.5]:80": /is not an IPv6 address in brackets$/,
      "fe80::1%eth0": /is not an IPv6 address or CIDR/,
      "db.internal:0": /has a port that is not 1 to 65535$/,
      "db.internal:65536": /has a port that is not 1 to 65535$/,
      "db.internal:": /has a port that is not 1 to 65535$/,
      "db.internal:54x": /has a port that is not 1 to 65535$/,
    };
    for (const [entry, why] of Object.entries(bad)) {
      it(`"${entry}"`, () => {
        let error: unknown;
        try {
          loadSettings({ SITEVOICE_OUTBOUND_ALLOW: `10.0.0.5, ${entry}, db.internal` });
        } catch (caught) {
          error = caught;
        }
        expect(error).to.be.instanceOf(SettingsError);
        const message = (error as SettingsError).message;
        expect(
          message.startsWith(`invalid setting SITEVOICE_OUTBOUND_ALLOW: "${entry}" `),
        ).to.equal(true, message);
        expect(message).to.match(why);
        expect(message).not.to.include("\n");
      });
    }
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

  it("reads the mail settings: no SMTP (the log mailer), a default sender, no owner", () => {
    expect(loadSettings({}).mail).to.deep.equal({
      smtpUrl: undefined,
      from: "Sitevoice <no-reply@localhost>",
    });
    expect(loadSettings({}).ownerEmail).to.equal(undefined);
    const set = loadSettings({
      SMTP_URL: "smtps://mailer:p%40ss@mail.example.com:465",
      MAIL_FROM: '"Acme, Inc." <hello@acme.example>',
      SITEVOICE_OWNER_EMAIL: " owner+sv@acme.example ",
    });
    expect(set.mail).to.deep.equal({
      smtpUrl: "smtps://mailer:p%40ss@mail.example.com:465",
      from: '"Acme, Inc." <hello@acme.example>',
    });
    expect(set.ownerEmail).to.equal("owner+sv@acme.example");
    expect(loadSettings({ SMTP_URL: "smtp://localhost" }).mail.smtpUrl).to.equal(
      "smtp://localhost",
    );
    expect(loadSettings({ MAIL_FROM: "ops@acme.example" }).mail.from).to.equal("ops@acme.example");
  });

  it("refuses a bad SMTP_URL without repeating it, since it may hold a password", () => {
    for (const raw of [
      "http://u:hunter2@mail.example.com",
      "u:hunter2@mail.example.com",
      "smtp://u:hunter2@",
      "smtp://u:hunter2@mail.example.com:99999",
      "smtp://u:hunter2@mail.example.com/inbox",
      "smtps://u:hunter2@mail.example.com?pool=true",
    ]) {
      expect(() => loadSettings({ SMTP_URL: raw }))
        .to.throw(SettingsError, /^invalid setting SMTP_URL: /)
        .and.satisfy((error: Error) => !error.message.includes("hunter2"));
    }
  });

  it("refuses each bad value naming the variable", () => {
    refused({ MAIL_FROM: "no-reply" }, "MAIL_FROM");
    refused({ MAIL_FROM: "Sitevoice <no-reply>" }, "MAIL_FROM");
    refused({ MAIL_FROM: "Sitevoice <a@b.example> <c@d.example>" }, "MAIL_FROM");
    refused({ MAIL_FROM: "Sitevoice\r\nBcc: x@y.example <a@b.example>" }, "MAIL_FROM");
    refused({ SITEVOICE_OWNER_EMAIL: "owner" }, "SITEVOICE_OWNER_EMAIL");
    refused({ SITEVOICE_OWNER_EMAIL: "Owner <owner@acme.example>" }, "SITEVOICE_OWNER_EMAIL");
    refused({ SITEVOICE_OWNER_EMAIL: "a b@acme.example" }, "SITEVOICE_OWNER_EMAIL");
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
