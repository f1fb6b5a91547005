/**
 * The outbound guard with private networks allowed, on requests as the platform fetch makes them:
 * method, headers and body, aborts, idle timeouts, 407 and 421, unreachable servers and decoding.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { expect } from "chai";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import { fakeDns, guardedWith, serve } from "./outbound-guard-fixtures.ts";

describe("outbound guard", () => {
  let server: DrfServer;
  before(async () => {
    server = await startDrfServer();
  });
  after(() => server.close());

  describe("with private networks allowed", () => {
    const guarded = guardedWith({ allowPrivateNetworks: true });

    it("sends the method, headers and body it is given", async () => {
      const arrived = server.nextRequest("/api/products/");
      const response = await guarded(`${server.origin}/api/products/`, {
        method: "POST",
        headers: { "x-service-signature": "abc", "content-type": "application/json" },
        body: JSON.stringify({ hello: "world" }),
      });
      expect(response.status).to.equal(405);
      const request = await arrived;
      expect(request.method).to.equal("POST");
      expect(request.headers["x-service-signature"]).to.equal("abc");
      expect(request.headers["content-length"]).to.equal("17");
    });

    it("aborts a request in flight: the server sees the connection close", async () => {
      const controller = new AbortController();
      const arrived = server.nextRequest("/api/slow/");
      const gone = server.clientGone("/api/slow/");
      const pending = guarded(`${server.origin}/api/slow/`, { signal: controller.signal });
      await arrived;
      const reason = new Error("caller gave up");
      controller.abort(reason);
      let caught: unknown;
      await pending.catch((error: unknown) => (caught = error));
      expect(caught).to.equal(reason);
      await gone;
    });

    it("aborts while the body streams: the read fails with the reason, the connection closes", async () => {
      const controller = new AbortController();
      const gone = server.clientGone("/api/huge/");
      const response = await guarded(`${server.origin}/api/huge/`, { signal: controller.signal });
      const reader = response.body!.getReader();
      expect((await reader.read()).done).to.equal(false);
      const reason = new Error("caller gave up");
      controller.abort(reason);
      let caught: unknown;
      for (;;) {
        const read = await reader.read().catch((error: unknown) => (caught = error));
        if (caught !== undefined || (read as { done: boolean }).done) break;
      }
      expect(caught).to.equal(reason);
      await gone;
      expect(server.huge.finished).to.equal(false);
    });

    it("fails a request whose connection stays idle longer than idleTimeoutMs", async () => {
      const stalls = await serve((req, res) => {
        if (req.url === "/body") res.writeHead(200).write("[1,"); // then nothing
      });
      try {
        // The causes name the idle timeouts that fired. Without idleTimeoutMs the guard waits the
        // 300 s default, and the test would end at mocha's timeout instead.
        const fetcher = guardedWith({ allowPrivateNetworks: true }, { idleTimeoutMs: 300 });
        let caught: unknown;
        await fetcher(`${stalls.origin}/head`).catch((error: unknown) => (caught = error));
        expect(caught).to.be.instanceOf(TypeError);
        expect((caught as TypeError).message).to.equal("fetch failed");
        expect((caught as TypeError & { cause: { code: string } }).cause.code).to.equal(
          "UND_ERR_HEADERS_TIMEOUT",
        );
        const response = await fetcher(`${stalls.origin}/body`);
        let bodyError: unknown;
        await response.text().catch((error: unknown) => (bodyError = error));
        expect(bodyError).to.be.instanceOf(TypeError);
        expect((bodyError as TypeError & { cause: { code: string } }).cause.code).to.equal(
          "UND_ERR_BODY_TIMEOUT",
        );
      } finally {
        stalls.close();
      }
    });

    it("treats 407 and 421 as the platform fetch does: a failure, and one retry on a new connection checked again", async () => {
      let misdirected = 0;
      const odd = await serve((req, res) => {
        if (req.url === "/proxy-auth") res.writeHead(407, { "content-length": 0 }).end();
        else if (misdirected++ === 0) res.writeHead(421, { "content-length": 0 }).end();
        else res.end("second try");
      });
      try {
        const dns = fakeDns({ "odd.example": ["127.0.0.1"] });
        const fetcher = guardedWith({ allowPrivateNetworks: true, resolve: dns.resolve });
        // The retry closes the first connection and opens another: resolved and checked again.
        const retried = await fetcher(`http://odd.example:${odd.port}/misdirected`);
        expect(await retried.text()).to.equal("second try");
        expect(misdirected).to.equal(2);
        expect(dns.calls).to.deep.equal(["odd.example", "odd.example"]);
        let caught: unknown;
        await fetcher(`http://odd.example:${odd.port}/proxy-auth`).catch(
          (error: unknown) => (caught = error),
        );
        expect(caught).to.be.instanceOf(TypeError);
        expect((caught as TypeError).message).to.equal("fetch failed");
      } finally {
        odd.close();
      }
    });

    it("reports an unreachable server as a fetch failure with its cause", async () => {
      const probe = http.createServer();
      probe.listen(0, "127.0.0.1");
      await once(probe, "listening");
      const { port } = probe.address() as AddressInfo;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      let caught: unknown;
      await guarded(`http://127.0.0.1:${port}/`).catch((error: unknown) => (caught = error));
      expect(caught).to.be.instanceOf(TypeError);
      expect((caught as TypeError & { cause: { code: string } }).cause.code).to.equal(
        "ECONNREFUSED",
      );
    });

    it("decodes deflate, br and stacked codings as fetch does; HEAD and 204 have no body", async () => {
      const text = JSON.stringify({ ok: true });
      const encoded = await serve((req, res) => {
        const bodies: Record<string, [string, Buffer]> = {
          "/deflate": ["deflate", deflateSync(text)],
          "/br": ["br", brotliCompressSync(text)],
          "/stacked": ["br, gzip", gzipSync(brotliCompressSync(text))],
        };
        if (req.url === "/empty") {
          res.writeHead(204).end();
          return;
        }
        const [coding, body] = bodies[req.url ?? ""] ?? ["identity", Buffer.from(text)];
        res.writeHead(200, { "content-encoding": coding, "content-length": body.byteLength });
        res.end(req.method === "HEAD" ? undefined : body);
      });
      try {
        for (const path of ["/deflate", "/br", "/stacked"]) {
          const response = await guarded(`${encoded.origin}${path}`);
          expect(await response.json(), path).to.deep.equal({ ok: true });
        }
        expect((await guarded(`${encoded.origin}/br`, { method: "HEAD" })).body).to.equal(null);
        expect((await guarded(`${encoded.origin}/empty`)).body).to.equal(null);
      } finally {
        encoded.close();
      }
    });

    it("decodes a gzip-encoded answer as fetch does", async () => {
      const gzipped = http.createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.end(gzipSync(JSON.stringify({ ok: true })));
      });
      gzipped.listen(0, "127.0.0.1");
      await once(gzipped, "listening");
      try {
        const { port } = gzipped.address() as AddressInfo;
        const response = await guarded(`http://127.0.0.1:${port}/`);
        expect(await response.json()).to.deep.equal({ ok: true });
      } finally {
        gzipped.closeAllConnections();
        gzipped.close();
      }
    });
  });
});
