/**
 * PluginHost's instances: one per scope, plugin and config, created once and replaced when the
 * config changes, failures of create and of calls wrapped in the host's errors, and close hidden.
 */
import { expect } from "chai";
import type { AdapterQuery, CollectionSpec } from "../search/search-types.ts";
import { definePlugin } from "./plugin.ts";
import type { DataAdapter, PluginInstance } from "./plugin.ts";
import { PluginCallError, PluginCreateError } from "./plugin-errors.ts";
import { PluginHost } from "./plugin-host.ts";
import { OutboundPolicy } from "../security/outbound-policy.ts";
import { closedLog, freshHost, logger, rejectionOf } from "./plugin-host-fixtures.ts";

const signal = new AbortController().signal;

const pages: CollectionSpec = {
  name: "pages",
  source: "pages",
  searchable_fields: [],
  filterable_fields: [],
  display_fields: [],
};
const everything: AdapterQuery = { searchFields: [], filters: [], limit: 10, fields: [] };

describe("PluginHost", () => {
  let host: PluginHost;

  beforeEach(() => {
    host = freshHost();
  });

  afterEach(async () => {
    await host.close();
  });

  describe("instances", () => {
    beforeEach(async () => {
      await host.loadPackages(["sitevoice-adapter-example"]);
    });

    it("keeps one instance per scope, plugin and config, whatever the key order", async () => {
      const first = await host.instance("adapter", "example", { dataset: "a", latencyMs: 0 }, "s1");
      const again = await host.instance("adapter", "example", { latencyMs: 0, dataset: "a" }, "s1");
      const otherScope = await host.instance(
        "adapter",
        "example",
        { dataset: "a", latencyMs: 0 },
        "s2",
      );

      expect(again).to.equal(first);
      expect(otherScope).to.not.equal(first);
      expect(closedLog()).to.deep.equal([]);
      expect(host.list()[0]?.status).to.equal("active");
    });

    it("shares one pending create between concurrent callers", async () => {
      let creates = 0;
      host.register(
        definePlugin({
          kind: "adapter",
          name: "adapter-slow",
          apiVersion: 1,
          create: async () => {
            creates += 1;
            await new Promise((resolve) => setTimeout(resolve, 10));
            return { search: async () => ({ success: true as const, total: creates, items: [] }) };
          },
        }),
        "test",
      );

      const instances = await Promise.all(
        [1, 2, 3].map(() => host.instance("adapter", "adapter-slow", {}, "s1")),
      );

      expect(creates).to.equal(1);
      expect(instances[1]).to.equal(instances[0]);
      expect(instances[2]).to.equal(instances[0]);
    });

    it("keeps at most maxScoped site instances, closing the least recently used after the delay", async () => {
      await host.close();
      host = new PluginHost({
        logger,
        outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
        instanceLimits: { maxScoped: 2, retireAfterMs: 20 },
      });
      await host.loadPackages(["sitevoice-adapter-example"]);
      const first = await host.instance("adapter", "example", { dataset: "one" }, "s1");
      await host.instance("adapter", "example", { dataset: "two" }, "s2");
      // s1 used again: s2 is now the least recently used.
      expect(await host.instance("adapter", "example", { dataset: "one" }, "s1")).to.equal(first);
      await host.instance("adapter", "example", { dataset: "three" }, "s3");

      expect(host.scopedInstanceCount).to.equal(2);
      // Not yet: a call that got it just before may still be running.
      expect(closedLog()).to.deep.equal([]);
      for (let waited = 0; closedLog().length === 0 && waited < 5_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(closedLog()).to.deep.equal(["two"]);
      // Asked for again, it is made again.
      const again = await host.instance("adapter", "example", { dataset: "two" }, "s2");
      expect(await again.search(pages, everything, { signal })).to.have.property("success", true);
      expect(host.scopedInstanceCount).to.equal(2);
    });

    it("closes the old instance when a scope's config changes", async () => {
      const old = await host.instance("adapter", "example", { dataset: "one" }, "s1");
      await host.instance("adapter", "example", { dataset: "kept" }, "s2");

      const replaced = await host.instance("adapter", "example", { dataset: "two" }, "s1");

      expect(replaced).to.not.equal(old);
      expect(closedLog()).to.deep.equal(["one"]);
      expect(await replaced.search(pages, everything, { signal })).to.deep.equal({
        success: true,
        total: 0,
        returned: 0,
        items: [],
      });
    });

    it("turns a throwing create into PluginCreateError and stays usable", async () => {
      await host.loadPackages(["sitevoice-sink-throws"]);

      const error = await rejectionOf(
        host.instance("event-sink", "sitevoice-sink-throws", {}, "s1"),
      );
      const adapter = await host.instance("adapter", "example", { dataset: "empty" }, "s1");

      expect(error).to.be.instanceOf(PluginCreateError);
      expect(error.message).to.equal(
        'plugin "sitevoice-sink-throws": create failed for scope "s1": sink cannot start',
      );
      expect((error.cause as Error).message).to.equal("sink cannot start");
      expect(await adapter.search(pages, everything, { signal })).to.have.property("total", 0);
    });

    it("does not keep a failed create, so the next call tries again", async () => {
      let attempts = 0;
      host.register(
        definePlugin({
          kind: "event-sink",
          name: "sink-flaky",
          apiVersion: 1,
          create: () => {
            attempts += 1;
            if (attempts === 1) throw new Error("not yet");
            return { handle: async () => {} };
          },
        }),
        "test",
      );

      await rejectionOf(host.instance("event-sink", "sink-flaky", {}, "s1"));
      const sink = await host.instance("event-sink", "sink-flaky", {}, "s1");

      expect(attempts).to.equal(2);
      expect(sink.handle).to.be.a("function");
    });

    it("rejects with PluginCallError when a method rejects", async () => {
      const adapter = await host.instance("adapter", "example", { dataset: "explode" }, "s1");

      const error = await rejectionOf(adapter.search(pages, everything, { signal }));

      expect(error).to.be.instanceOf(PluginCallError);
      expect(error).to.include({
        plugin: "sitevoice-adapter-example",
        kind: "adapter",
        method: "search",
      });
      expect((error.cause as Error).message).to.equal("example backend exploded");
    });

    it("turns a synchronous throw into a rejected promise", async () => {
      host.register(
        definePlugin({
          kind: "adapter",
          name: "adapter-sync-throw",
          apiVersion: 1,
          create: (): DataAdapter => ({
            search: () => {
              throw new TypeError("not async at all");
            },
          }),
        }),
        "test",
      );
      const adapter = await host.instance("adapter", "adapter-sync-throw", {}, "s1");

      let result: Promise<unknown> | undefined;
      expect(() => (result = adapter.search(pages, everything, { signal }))).to.not.throw();
      const error = await rejectionOf(result as Promise<unknown>);

      expect(error).to.be.instanceOf(PluginCallError);
      expect(error.message).to.equal(
        'plugin "adapter-sync-throw" (adapter): search failed: not async at all',
      );
    });

    it("hides close from callers", async () => {
      const adapter: PluginInstance = await host.instance(
        "adapter",
        "example",
        { dataset: "a" },
        "s1",
      );

      expect(adapter.close).to.equal(undefined);
      expect("close" in adapter).to.equal(false);
      expect(closedLog()).to.deep.equal([]);
    });
  });
});
