/**
 * How PluginHost checks a plugin's config against its configSchema: each failing field named with
 * a config. path, and an invalid config refused before create.
 */
import { expect } from "chai";
import { definePlugin } from "./plugin.ts";
import { PluginConfigError } from "./plugin-errors.ts";
import type { PluginHost } from "./plugin-host.ts";
import { freshHost, memorySink, rejectionOf } from "./plugin-host-fixtures.ts";

describe("PluginHost", () => {
  let host: PluginHost;

  beforeEach(() => {
    host = freshHost();
  });

  afterEach(async () => {
    await host.close();
  });

  describe("config", () => {
    beforeEach(async () => {
      await host.loadPackages(["sitevoice-adapter-example"]);
    });

    it("names each failing field with a config. path", () => {
      expect(host.validateConfig("adapter", "example", { dataset: "empty" })).to.deep.equal([]);
      expect(host.validateConfig("adapter", "example", { dataset: 5 })).to.deep.equal([
        { field: "config.dataset", message: "config.dataset must be a string" },
      ]);
      expect(host.validateConfig("adapter", "example", { latencyMs: -1, extra: 1 })).to.deep.equal([
        { field: "config.dataset", message: "config.dataset is required" },
        { field: "config.extra", message: "config.extra is not a known field" },
        { field: "config.latencyMs", message: "config.latencyMs must be at least 0" },
      ]);
    });

    it("reports nested fields and reads draft-07 schemas too", () => {
      host.register(
        definePlugin({
          kind: "auth",
          name: "auth-header",
          apiVersion: 1,
          configSchema: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: {
              auth: { type: "object", properties: { value: { type: "string", format: "uri" } } },
            },
          },
          create: () => ({ authenticate: async () => undefined }),
        }),
        "test",
      );

      expect(host.validateConfig("auth", "auth-header", { auth: { value: 1 } })).to.deep.equal([
        { field: "config.auth.value", message: "config.auth.value must be a string" },
      ]);
      expect(host.validateConfig("auth", "auth-header", { auth: { value: "nope" } })).to.deep.equal(
        [{ field: "config.auth.value", message: "config.auth.value must be a valid uri" }],
      );
    });

    it("passes any config when the plugin has no configSchema", () => {
      host.register(memorySink("sink-free"), "test");

      expect(host.validateConfig("event-sink", "sink-free", { anything: true })).to.deep.equal([]);
    });

    it("refuses an invalid config before create, naming the plugin and the field", async () => {
      const error = await rejectionOf(
        host.instance("adapter", "example", { dataset: 5 }, "site-1"),
      );

      expect(error).to.be.instanceOf(PluginConfigError);
      expect(error.message).to.equal(
        'plugin "sitevoice-adapter-example": config.dataset must be a string',
      );
      expect((error as PluginConfigError).plugin).to.equal("sitevoice-adapter-example");
      expect((error as PluginConfigError).errors).to.deep.equal([
        { field: "config.dataset", message: "config.dataset must be a string" },
      ]);
      expect(host.list()[0]?.status).to.equal("registered");
    });
  });
});
