/**
 * PluginHost's lifecycle: startGlobal starting each global plugin and marking the ones that fail,
 * and close closing every instance once, in reverse order, and refusing new ones after.
 */
import { once } from "node:events";
import http from "node:http";
import type net from "node:net";
import { expect } from "chai";
import { definePlugin } from "./plugin.ts";
import type { EventSink } from "./plugin.ts";
import type { PluginHost } from "./plugin-host.ts";
import { closedLog, freshHost, memorySink, rejectionOf } from "./plugin-host-fixtures.ts";
import { testPluginHost } from "./testing/test-host.ts";

describe("PluginHost", () => {
  let host: PluginHost;

  beforeEach(() => {
    host = freshHost();
  });

  afterEach(async () => {
    await host.close();
  });

  describe("startGlobal", () => {
    it("reports an auth plugin that started but is used for nothing as unused, with why", async () => {
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
      host.useGlobal("auth", (auth) => auth.passwords !== undefined, "the dashboard's passwords");
      const [auth] = host.list();
      expect(auth).to.include({ name: "auth-idle", status: "unused" });
      expect(auth?.note).to.match(/authenticate/);
    });

    describe("useGlobal", () => {
      const hasher = { hash: async (p: string) => p, verify: async () => false };
      beforeEach(async () => {
        for (const name of ["auth-jwt", "auth-first", "auth-second"]) {
          host.register(
            definePlugin({
              kind: "auth",
              name,
              apiVersion: 1,
              create: () =>
                name === "auth-jwt"
                  ? { authenticate: async () => undefined }
                  : { passwords: hasher },
            }),
            "test",
          );
        }
        host.start();
        await host.startGlobal({});
      });

      it("hands out the first instance that serves, and reports its plugin active for that", () => {
        const used = host.useGlobal("auth", (a) => a.passwords !== undefined, "sign-in");
        expect(used?.passwords).to.equal(hasher);
        expect(host.list().find((p) => p.name === "auth-first")).to.deep.include({
          status: "active",
          note: "in use for sign-in",
        });
      });

      it("reports the instances of its kind it did not hand out as unused", () => {
        host.useGlobal("auth", (a) => a.passwords !== undefined, "sign-in");
        const statuses = host.list().map(({ name, status }) => [name, status]);
        expect(statuses).to.deep.equal([
          ["auth-jwt", "unused"],
          ["auth-first", "active"],
          ["auth-second", "unused"],
        ]);
      });

      it("hands out nothing, and marks nothing, when no instance serves", () => {
        expect(host.useGlobal("auth", () => false, "sign-in")).to.equal(undefined);
        expect(host.list().map((p) => p.status)).to.deep.equal(["unused", "unused", "unused"]);
      });
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

  it("closes the keep-alive connections its plugins' fetch holds", async () => {
    // Both sides would keep the connection for ten minutes: only the host's close ends it.
    const server = http.createServer((_req, res) => {
      res.setHeader("Keep-Alive", "timeout=600");
      res.end("ok");
    });
    server.keepAliveTimeout = 600_000;
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const sockets: net.Socket[] = [];
    server.on("connection", (socket: net.Socket) => sockets.push(socket));
    try {
      const open = testPluginHost({ allowPrivateNetworks: true });
      let pluginFetch: typeof fetch | undefined;
      open.register(
        definePlugin({
          kind: "event-sink",
          name: "sink-fetching",
          apiVersion: 1,
          create: (_config, context) => {
            pluginFetch = context.fetch;
            return { handle: async () => undefined };
          },
        }),
        "test",
      );
      open.start();
      await open.startGlobal({});
      const { port } = server.address() as net.AddressInfo;
      expect(await (await pluginFetch!(`http://127.0.0.1:${port}/`)).text()).to.equal("ok");
      expect(sockets.map((socket) => socket.destroyed)).to.deep.equal([false]);

      const closed = once(sockets[0]!, "close");
      await open.close();
      await closed;
      expect(sockets.map((socket) => socket.destroyed)).to.deep.equal([true]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
