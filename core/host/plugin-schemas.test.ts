/**
 * A third-party adapter's own schemas, as a built-in's are used: its configSchema and
 * collectionSchema judge a site when it is saved, worded by its `x-error-message`s, and
 * `x-error-code: validation_failed` makes a rule a business rule (422).
 */
import { expect } from "chai";
import { pino } from "pino";
import { httpStatus } from "../http/error-status.ts";
import { OutboundPolicy } from "../security/outbound-policy.ts";
import { SiteRules } from "../sites/site-rules.ts";
import { definePlugin } from "./plugin.ts";
import { PluginLoadError } from "./plugin-errors.ts";
import { PluginHost } from "./plugin-host.ts";
import { refusalOf, thrownBy } from "../../test/helpers/thrown.ts";

const airtable = {
  kind: "adapter" as const,
  name: "acme-sitevoice-airtable",
  apiVersion: 1,
  type: "airtable",
  configSchema: {
    type: "object",
    additionalProperties: false,
    required: ["baseId"],
    properties: {
      baseId: {
        type: "string",
        pattern: "^app[A-Za-z0-9]{14}$",
        "x-error-message": "must be an Airtable base id such as appABCDEFGHIJKLMN",
      },
      region: {
        type: "string",
        enum: ["eu", "us"],
        default: "eu",
        "x-error-code": "validation_failed",
        "x-error-message": "must be a region this installation serves (eu or us)",
      },
    },
  },
  collectionSchema: {
    type: "object",
    properties: {
      source: {
        type: "string",
        pattern: "^tbl[A-Za-z0-9]{14}$",
        "x-error-message": "must be an Airtable table id such as tblABCDEFGHIJKLMN",
      },
    },
  },
  create: () => ({ search: async () => ({ success: true as const, total: 0, items: [] }) }),
};

const site = (config: object, source = "tblABCDEFGHIJKLMN") => ({
  business_name: "Acme",
  business_description: "",
  domain: "acme.example",
  adapter: {
    type: "airtable",
    config,
    collections: { products: { source, searchable_fields: ["name"] } },
  },
});

describe("a third-party adapter's schemas", () => {
  let host: PluginHost;
  let rules: SiteRules;

  beforeEach(() => {
    host = new PluginHost({
      logger: pino({ level: "silent" }),
      outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
    });
    rules = new SiteRules({ plugins: host, industries: new Set(["general"]) });
  });

  afterEach(async () => {
    await host.close();
  });

  const rejection = (data: unknown) => refusalOf(() => rules.accept("site-create", data));
  /** The error registering `airtable` with `change` throws. */
  const registrationError = (change: object) =>
    thrownBy(() => host.register(definePlugin({ ...airtable, ...change }), "test"));

  it("accepts a site its schemas accept, filling in its configSchema's defaults", () => {
    host.register(definePlugin(airtable), "test");
    const accepted = rules.accept<{ adapter: { config: object } }>(
      "site-create",
      site({ baseId: "appABCDEFGHIJKLMN" }),
    );
    expect(accepted.adapter.config).to.deep.equal({ baseId: "appABCDEFGHIJKLMN", region: "eu" });
  });

  it("words a config problem by its x-error-message, naming the plugin (400)", () => {
    host.register(definePlugin(airtable), "test");
    const error = rejection(site({ baseId: "base1" }));
    expect([error.code, httpStatus(error)]).to.deep.equal(["invalid_request", 400]);
    expect(error.message).to.equal(
      "adapter.config.baseId must be an Airtable base id such as appABCDEFGHIJKLMN",
    );
    expect(error.details).to.include({
      field: "adapter.config.baseId",
      plugin: "acme-sitevoice-airtable",
    });
  });

  it("answers a rule marked x-error-code: validation_failed with 422", () => {
    host.register(definePlugin(airtable), "test");
    const error = rejection(site({ baseId: "appABCDEFGHIJKLMN", region: "apac" }));
    expect([error.code, httpStatus(error), error.message]).to.deep.equal([
      "validation_failed",
      422,
      "adapter.config.region must be a region this installation serves (eu or us)",
    ]);
  });

  it("refuses at registration any x-error-code but validation_failed", () => {
    const configSchema = { type: "string", "x-error-code": "forbidden" };
    const error = registrationError({ configSchema });
    expect(error).to.be.instanceOf(PluginLoadError);
    expect(error.message).to.match(/configSchema does not compile/);
  });

  it("names an unknown field of a schema closed with unevaluatedProperties", () => {
    const configSchema = {
      type: "object",
      properties: { baseId: { type: "string" } },
      unevaluatedProperties: false,
    };
    host.register(definePlugin({ ...airtable, configSchema }), "test");
    const error = rejection(site({ baseId: "appABCDEFGHIJKLMN", extra: 1 }));
    expect([error.details.field, error.message]).to.deep.equal([
      "adapter.config.extra",
      "adapter.config.extra is not a known field",
    ]);
  });

  it("judges each collection by its collectionSchema", () => {
    host.register(definePlugin(airtable), "test");
    const error = rejection(site({ baseId: "appABCDEFGHIJKLMN" }, "Products"));
    expect(error.details.errors).to.deep.equal([
      {
        field: "adapter.collections.products.source",
        message:
          "adapter.collections.products.source must be an Airtable table id such as tblABCDEFGHIJKLMN",
        code: "invalid_request",
        plugin: "acme-sitevoice-airtable",
      },
    ]);
  });

  it("registers a plugin whose configSchema has a default at its root", () => {
    const configSchema = { type: "object", default: {} };
    host.register(definePlugin({ ...airtable, configSchema }), "test");
    host.register(
      definePlugin({
        kind: "event-sink",
        name: "sink-with-root-default",
        apiVersion: 1,
        configSchema,
        create: () => ({ handle: async () => undefined }),
      }),
      "test",
    );
    expect(host.list().map((p) => p.name)).to.deep.equal([
      "acme-sitevoice-airtable",
      "sink-with-root-default",
    ]);
  });

  it("takes a config that leaves out a defaulted field as the same destination", () => {
    host.register(definePlugin(airtable), "test");
    const stored = { type: "airtable", config: { baseId: "appABCDEFGHIJKLMN", region: "eu" } };
    const sent = { type: "airtable", config: { baseId: "appABCDEFGHIJKLMN" } };
    expect(rules.sameDestination(sent, stored)).to.equal(true);
    const elsewhere = { type: "airtable", config: { baseId: "appABCDEFGHIJKLMN", region: "us" } };
    expect(rules.sameDestination(elsewhere, stored)).to.equal(false);
  });

  it("refuses at registration a collectionSchema ajv cannot compile", () => {
    const error = registrationError({ collectionSchema: { type: "nope" } });
    expect(error).to.be.instanceOf(PluginLoadError);
    expect(error.message).to.match(
      /^plugin "acme-sitevoice-airtable": collectionSchema does not compile: /,
    );
  });

  it("refuses at registration an x-error-message that is not text", () => {
    const configSchema = { type: "object", properties: { a: { "x-error-message": 5 } } };
    const error = registrationError({ configSchema });
    expect(error).to.be.instanceOf(PluginLoadError);
    expect(error.message).to.match(/configSchema does not compile/);
  });
});
