/**
 * The Airtable adapter's definition: what its config.schema.json accepts and refuses through the
 * host, its destination, its `oauth` block, and the refusal to run without `context.oauth`.
 */
import { expect } from "chai";
import { PluginCreateError, type PluginHost } from "sitevoice";
import { testPluginHost } from "sitevoice/testing";
import airtablePlugin from "./index.ts";
import { airtableAdapters } from "./adapter-airtable-fixtures.ts";

const BASE = "appA1b2C3d4E5f6G7";

describe("Airtable adapter definition", () => {
  const host = () => {
    const made: PluginHost = testPluginHost({ allowPrivateNetworks: false });
    made.register(airtablePlugin, "builtin:adapter-airtable");
    return made;
  };
  const issues = (config: unknown) =>
    host()
      .validateConfig("adapter", "airtable", config)
      .map((issue) => issue.field);

  it("accepts its schema's examples", () => {
    expect(issues({ baseId: BASE })).to.deep.equal([]);
    expect(
      issues({ baseId: BASE, apiUrl: "https://api.airtable.com", timeoutMs: 5000 }),
    ).to.deep.equal([]);
    expect(issues({ baseId: BASE, apiUrl: "http://127.0.0.1:8787/" })).to.deep.equal([]);
    expect(issues({ baseId: BASE, apiUrl: "http://localhost:8787" })).to.deep.equal([]);
  });

  it("refuses a bad base id, a plain-http or non-origin apiUrl, extras and secrets", () => {
    for (const baseId of [
      "appShort",
      "tblA1b2C3d4E5f6G7",
      "appA1b2C3d4E5f6G7x",
      "app-1b2C3d4E5f6G7",
      42,
    ]) {
      expect(issues({ baseId }), String(baseId)).to.include("config.baseId");
    }
    expect(issues({})).to.include("config.baseId");
    for (const apiUrl of [
      "http://api.airtable.com",
      "http://10.0.0.5:8080",
      "https://proxy.example/airtable",
      "https://api.airtable.com?x=1",
      "ftp://api.airtable.com",
    ]) {
      expect(issues({ baseId: BASE, apiUrl }), apiUrl).to.include("config.apiUrl");
    }
    expect(issues({ baseId: BASE, timeoutMs: 60_000 })).to.include("config.timeoutMs");
    expect(issues({ baseId: BASE, token: "pat123" })).to.include("config.token");
  });

  it("words the refusals for the site owner", () => {
    const messages = host()
      .validateConfig("adapter", "airtable", { baseId: "nope", apiUrl: "http://api.airtable.com" })
      .map((issue) => issue.message)
      .join("\n");
    expect(messages).to.include("must be an Airtable base ID");
    expect(messages).to.include("must use https://");
  });

  it("binds tokens to the API's origin and the base", () => {
    const destination = (config: unknown) => host().destination("adapter", "airtable", config);
    expect(destination({ baseId: BASE })).to.equal(`https://api.airtable.com/v0/${BASE}`);
    expect(destination({ baseId: BASE, apiUrl: "http://127.0.0.1:9999/" })).to.equal(
      `http://127.0.0.1:9999/v0/${BASE}`,
    );
  });

  it("declares Airtable's OAuth endpoints and scopes, and no revocation endpoint", () => {
    expect(airtablePlugin.oauth).to.deep.equal({
      authorizationUrl: "https://airtable.com/oauth2/v1/authorize",
      tokenUrl: "https://airtable.com/oauth2/v1/token",
      scopes: ["data.records:read", "schema.bases:read"],
      clientAuthentication: "client_secret_basic",
    });
  });

  it("is self-contained: no $ref, and no x- annotations but the host's x-error-*", () => {
    const text = JSON.stringify(airtablePlugin.configSchema);
    expect(text).not.to.include("$ref");
    const annotations = new Set(text.match(/"x-[a-z-]+"/g));
    expect([...annotations].sort()).to.deep.equal(['"x-error-code"', '"x-error-message"']);
  });

  it("refuses to run on a host that gives it no OAuth connection", async () => {
    const { instanceOf, closeHosts } = airtableAdapters();
    let caught: unknown;
    // testPluginHost without `accessToken` gives plugins no context.oauth.
    await instanceOf(testPluginHost(), { baseId: BASE }).catch(
      (error: unknown) => (caught = error),
    );
    await closeHosts();
    expect(caught).to.be.instanceOf(PluginCreateError);
    expect((caught as Error).message).to.include("gave it none (context.oauth)");
  });
});
