/**
 * How PluginHost takes plugins in: npm packages by name, the built-in folders, and register, which
 * checks each definition and hands create its context, with a fetch and a socket under the policy.
 */
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Logger as PinoLogger } from "pino";
import { definePlugin } from "./plugin.ts";
import type { PluginContext } from "./plugin.ts";
import { PluginLoadError } from "./plugin-errors.ts";
import { PluginHost } from "./plugin-host.ts";
import { OutboundPolicy } from "../security/outbound-policy.ts";
import type { GuardedRequest } from "../security/guarded-request.ts";
import { freshHost, logger, memorySink, rejectionOf } from "./plugin-host-fixtures.ts";
import { thrownBy } from "../../test/helpers/thrown.ts";

describe("PluginHost", () => {
  let host: PluginHost;

  beforeEach(() => {
    host = freshHost();
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
      const fakeRequest: GuardedRequest = async (url) => ({
        status: 200,
        statusText: "OK",
        headers: {},
        body: Buffer.from("ok"),
        url: String(url),
        redirected: false,
      });
      const contexts: PluginContext[] = [];
      const received: unknown[] = [];
      host = new PluginHost({
        logger,
        outbound: { fetch: fakeFetch, request: fakeRequest, socket: fakeSocket },
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
      expect(contexts[0]?.request).to.equal(fakeRequest);
      // The host is given pino, so the plugin's logger is pino's child named after it.
      const pluginLogger = contexts[0]?.logger as PinoLogger | undefined;
      expect(pluginLogger?.bindings()).to.deep.equal({ plugin: "sink-inline" });
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
});
