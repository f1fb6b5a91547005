import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import type { AdapterQuery, CollectionSpec } from "../search/search-types.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { pino } from "pino";
import { definePlugin } from "./plugin.ts";
import type { DataAdapter, EventSink, PluginContext, PluginInstance } from "./plugin.ts";
import {
  PluginCallError,
  PluginConfigError,
  PluginCreateError,
  PluginLoadError,
} from "./plugin-errors.ts";
import { PluginHost } from "./plugin-host.ts";
import { OutboundPolicy } from "../security/outbound-policy.ts";

const logger = pino({ level: "silent" });
const signal = new AbortController().signal;

/** The example fixture records each closed instance's dataset here. */
const fixtureGlobals = globalThis as typeof globalThis & { __sitevoiceExampleClosed?: string[] };
const closedLog = (): string[] => fixtureGlobals.__sitevoiceExampleClosed ?? [];

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(Error);
    return error as Error;
  }
  return expect.fail("expected a rejection");
}

function thrownBy(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(Error);
    return error as Error;
  }
  return expect.fail("expected a throw");
}

function memorySink(name: string, received: unknown[] = []) {
  return definePlugin({
    kind: "event-sink",
    name,
    apiVersion: 1,
    create: (config) => ({
      handle: async (event) => {
        received.push({ config, event });
      },
    }),
  });
}

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
    fixtureGlobals.__sitevoiceExampleClosed = [];
    // Nothing here connects anywhere: the default policy, as in production.
    host = new PluginHost({
      logger,
      outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
    });
  });

  afterEach(async () => {
    await host.close();
  });

  describe("loading npm packages by name", () => {
    it("registers a published adapter and finds it by type or by name", async () => {
      await host.loadPackages(["sitevoice-adapter-example"]);

      expect(host.list()).to.deep.equal([
        {
          name: "sitevoice-adapter-example",
          kind: "adapter",
          type: "example",
          source: "npm:sitevoice-adapter-example",
          status: "registered",
          error: undefined,
        },
      ]);
      expect(host.find("adapter", "example")?.name).to.equal("sitevoice-adapter-example");
      expect(host.find("adapter", "sitevoice-adapter-example")?.type).to.equal("example");
      expect(host.find("event-sink", "example")).to.equal(undefined);
    });

    it("refuses a plugin built for another apiVersion, naming the plugin", async () => {
      const error = await rejectionOf(host.loadPackages(["sitevoice-plugin-future"]));

      expect(error).to.be.instanceOf(PluginLoadError);
      expect(error.message).to.equal(
        'plugin "sitevoice-plugin-future": apiVersion 2 is not supported by this host (it speaks 1)',
      );
      expect((error as PluginLoadError).source).to.equal("npm:sitevoice-plugin-future");
      expect(host.list()).to.deep.equal([]);
    });

    it("refuses a package whose default export is not a plugin, naming the package", async () => {
      const error = await rejectionOf(host.loadPackages(["sitevoice-not-a-plugin"]));

      expect(error).to.be.instanceOf(PluginLoadError);
      expect(error.message).to.match(/^package "sitevoice-not-a-plugin": kind \(missing\) is not/);
    });

    it("refuses a package that is not installed, naming it", async () => {
      const error = await rejectionOf(host.loadPackages(["sitevoice-adapter-nowhere"]));

      expect(error).to.be.instanceOf(PluginLoadError);
      expect(error.message).to.match(
        /^package "sitevoice-adapter-nowhere" could not be imported: /,
      );
      expect((error.cause as NodeJS.ErrnoException).code).to.equal("ERR_MODULE_NOT_FOUND");
    });
  });

  describe("loading built-ins", () => {
    let dir: string;

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), "sitevoice-builtins-"));
    });

    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("does nothing when the folder does not exist", async () => {
      await host.loadBuiltins(join(dir, "missing"));

      expect(host.list()).to.deep.equal([]);
    });

    it("registers the index.ts of each folder and skips folders without one", async () => {
      await mkdir(join(dir, "sink-tmp"));
      await writeFile(
        join(dir, "sink-tmp", "index.ts"),
        'export default { kind: "event-sink", name: "sink-tmp", apiVersion: 1, ' +
          "create: () => ({ handle: async () => {} }) };\n",
      );
      await mkdir(join(dir, "work-in-progress"));

      await host.loadBuiltins(dir);

      expect(host.list().map(({ name, source }) => ({ name, source }))).to.deep.equal([
        { name: "sink-tmp", source: "builtin:sink-tmp" },
      ]);
    });
  });

  describe("register", () => {
    const valid = { kind: "event-sink", name: "sink-x", apiVersion: 1, create: () => ({}) };

    for (const [what, change, expected] of [
      ["an unknown kind", { kind: "logger" }, 'plugin "sink-x": kind "logger" is not one of'],
      ["a name npm would refuse", { name: "Sink X" }, 'plugin from test: name "Sink X" is not'],
      ["a missing apiVersion", { apiVersion: undefined }, 'plugin "sink-x": apiVersion (missing)'],
      ["a create that is no function", { create: "make" }, 'plugin "sink-x": create "make" is'],
      [
        "a schema ajv cannot compile",
        { configSchema: { type: "nope" } },
        'plugin "sink-x": configSchema does not compile: schema is invalid',
      ],
    ] as const) {
      it(`refuses ${what}`, () => {
        const error = thrownBy(() => host.register({ ...valid, ...change }, "test"));

        expect(error).to.be.instanceOf(PluginLoadError);
        expect(error.message.startsWith(expected), error.message).to.equal(true);
      });
    }

    it("refuses a second plugin of the same name, or of the same kind and type", async () => {
      await host.loadPackages(["sitevoice-adapter-example"]);

      const sameName = thrownBy(() =>
        host.register({ ...valid, name: "sitevoice-adapter-example" }, "test"),
      );
      const sameType = thrownBy(() =>
        host.register({ ...valid, kind: "adapter", name: "other", type: "example" }, "test"),
      );
      host.register({ ...valid, name: "sink-typed", type: "example" }, "test");

      expect(sameName.message).to.equal(
        'plugin "sitevoice-adapter-example": name is already registered (from npm:sitevoice-adapter-example)',
      );
      expect(sameType.message).to.equal(
        'plugin "other": type "example" is already served by adapter plugin "sitevoice-adapter-example"',
      );
      expect(host.list().map((p) => p.name)).to.deep.equal([
        "sitevoice-adapter-example",
        "sink-typed",
      ]);
    });

    it("throws a plain error at once when called after start", () => {
      host.start();

      const error = thrownBy(() => host.register(memorySink("sink-late"), "test"));

      expect(error).to.not.be.instanceOf(PluginLoadError);
      expect(error.message).to.equal("cannot register plugin sink-late after the host has started");
    });

    it("accepts a definition made inline with definePlugin and hands create its context", async () => {
      const fakeFetch = (async () => new Response("ok")) as typeof fetch;
      const fakeSocket = () => new net.Socket();
      const contexts: PluginContext[] = [];
      const received: unknown[] = [];
      host = new PluginHost({
        logger,
        outbound: { fetch: fakeFetch, socket: fakeSocket },
        now: () => 42,
      });
      host.register(
        definePlugin({
          kind: "event-sink",
          name: "sink-inline",
          apiVersion: 1,
          create: (_config, context) => {
            contexts.push(context);
            return { handle: async (event) => void received.push(event) };
          },
        }),
        "test",
      );

      const sink = await host.instance("event-sink", "sink-inline", {}, "site-1");
      await sink.handle({ id: "e1", type: "test.event", data: {} });

      expect(received).to.deep.equal([{ id: "e1", type: "test.event", data: {} }]);
      expect(contexts).to.have.length(1);
      expect(contexts[0]?.scope).to.equal("site-1");
      expect(contexts[0]?.now()).to.equal(42);
      expect(contexts[0]?.fetch).to.equal(fakeFetch);
      expect(contexts[0]?.socket).to.equal(fakeSocket);
      expect(contexts[0]?.logger.bindings()).to.deep.equal({ plugin: "sink-inline" });
    });

    it("hands plugins a fetch and a socket under the policy it was given", async () => {
      const listener = net.createServer((socket) => socket.destroy());
      listener.listen(0, "127.0.0.1");
      await once(listener, "listening");
      const { port } = listener.address() as net.AddressInfo;
      let accepted = 0;
      listener.on("connection", () => accepted++);
      try {
        const contexts: PluginContext[] = [];
        host = new PluginHost({
          logger,
          outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
        });
        host.register(
          definePlugin({
            kind: "event-sink",
            name: "sink-network",
            apiVersion: 1,
            create: (_config, context) => {
              contexts.push(context);
              return { handle: async () => undefined };
            },
          }),
          "test",
        );
        await host.instance("event-sink", "sink-network", {}, "site-1");
        const context = contexts[0] as PluginContext;

        const socket = context.socket();
        socket.connect(port, "127.0.0.1");
        const [error] = (await once(socket, "error")) as [NodeJS.ErrnoException];
        expect(error.code).to.equal("OUTBOUND_BLOCKED");
        let refused: unknown;
        await context.fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => (refused = e));
        expect((refused as NodeJS.ErrnoException).code).to.equal("OUTBOUND_BLOCKED");
        expect(accepted).to.equal(0);
      } finally {
        listener.close();
      }
    });
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

  describe("startGlobal", () => {
    it("reports an auth plugin that started as unused, with why, since nothing calls it yet", async () => {
      host.register(
        definePlugin({
          kind: "auth",
          name: "auth-idle",
          apiVersion: 1,
          create: () => ({ authenticate: async () => undefined }),
        }),
        "test",
      );
      host.start();
      await host.startGlobal({});
      const [auth] = host.list();
      expect(auth).to.include({ name: "auth-idle", status: "unused" });
      expect(auth?.note).to.match(/not called yet/);
    });

    it("marks a failing plugin and starts the others", async () => {
      const received: unknown[] = [];
      await host.loadPackages(["sitevoice-sink-throws", "sitevoice-adapter-example"]);
      host.register(memorySink("sink-memory", received), "test");
      host.register(
        definePlugin({
          kind: "auth",
          name: "auth-secret",
          apiVersion: 1,
          configSchema: { type: "object", required: ["secret"] },
          create: () => ({ authenticate: async () => undefined }),
        }),
        "test",
      );
      host.start();

      await host.startGlobal({ "sink-memory": { label: "mem" } });

      expect(host.list().map(({ name, status, error }) => ({ name, status, error }))).to.deep.equal(
        [
          {
            name: "sitevoice-sink-throws",
            status: "failed",
            error:
              'plugin "sitevoice-sink-throws": create failed for scope "global": sink cannot start',
          },
          { name: "sitevoice-adapter-example", status: "registered", error: undefined },
          { name: "sink-memory", status: "active", error: undefined },
          {
            name: "auth-secret",
            status: "failed",
            error: 'plugin "auth-secret": config.secret is required',
          },
        ],
      );
      const sinks: EventSink[] = host.globals("event-sink");
      expect(sinks).to.have.length(1);
      await sinks[0]?.handle({ id: "e1", type: "test.event", data: 1 });
      expect(received).to.deep.equal([
        { config: { label: "mem" }, event: { id: "e1", type: "test.event", data: 1 } },
      ]);
      expect(host.globals("auth")).to.deep.equal([]);
    });
  });

  describe("close", () => {
    it("closes every instance in reverse order of creation, once", async () => {
      await host.loadPackages(["sitevoice-adapter-example"]);
      host.register(
        definePlugin({
          kind: "adapter",
          name: "adapter-bad-close",
          apiVersion: 1,
          create: () => ({
            search: async () => ({ success: true as const, total: 0, items: [] }),
            close: () => {
              closedLog().push("bad-close");
              throw new Error("close failed");
            },
          }),
        }),
        "test",
      );
      await host.instance("adapter", "example", { dataset: "first" }, "s1");
      await host.instance("adapter", "adapter-bad-close", {}, "s1");
      await host.instance("adapter", "example", { dataset: "second" }, "s2");
      await host.instance("adapter", "example", { dataset: "third" }, "s3");

      await host.close();
      await host.close();

      expect(closedLog()).to.deep.equal(["third", "second", "bad-close", "first"]);
    });

    it("refuses new instances once closed", async () => {
      await host.loadPackages(["sitevoice-adapter-example"]);
      await host.close();

      const error = await rejectionOf(host.instance("adapter", "example", { dataset: "a" }, "s1"));

      expect(error.message).to.equal("the plugin host is closed");
    });
  });
});
