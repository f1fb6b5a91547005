/**
 * The guarded plain request on what it answers: the whole body as a Buffer, read up to a cap,
 * decoded (the cap holding on the decoded body too), aborts, kept-alive connections and the
 * reason phrase, against real local servers.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { expect } from "chai";
import type { Agent } from "undici";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import { guardedRequest, ResponseTooLargeError } from "./guarded-request.ts";
import { guardedAgent } from "./outbound-guard.ts";
import { fakeDns, serve } from "./outbound-guard-fixtures.ts";
import { OutboundPolicy, type OutboundPolicyOptions } from "./outbound-policy.ts";

/** What a promise rejects with; fails the test when it resolves. */
const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.fail("expected the request to fail"),
    (error: unknown) => error,
  );

/** A server on 127.0.0.1 that counts the connections it accepts. */
async function countingServer(handler: http.RequestListener) {
  const server = http.createServer(handler);
  const counted = { connections: 0 };
  server.on("connection", () => counted.connections++);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  return Object.assign(counted, { port, origin: `http://127.0.0.1:${port}`, close });
}

describe("guarded request", () => {
  let server: DrfServer;
  const agents: Agent[] = [];
  /** The guarded request of a policy built from `options`, on a guarded Agent of its own. */
  const requestWith = (options: OutboundPolicyOptions) => {
    const policy = new OutboundPolicy(options);
    const agent = guardedAgent({ policy });
    agents.push(agent);
    return guardedRequest(agent, { policy });
  };
  const request = requestWith({ allowPrivateNetworks: true });
  before(async () => {
    server = await startDrfServer();
  });
  after(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await server.close();
  });

  it("reads the whole body, however it is chunked, as one Buffer", async () => {
    const parts = ["a", "b", "c"].map((letter) => letter.repeat(64 * 1024));
    const chunked = await serve(async (_req, res) => {
      for (const part of parts) {
        if (!res.write(part)) await once(res, "drain");
      }
      res.end();
    });
    try {
      const answer = await request(`${chunked.origin}/`);
      expect(Buffer.isBuffer(answer.body)).to.equal(true);
      expect(answer.body.toString()).to.equal(parts.join(""));
      expect(answer.headers["transfer-encoding"]).to.equal("chunked");
      const json = await request(`${server.origin}/api/products/?limit=2`);
      expect(JSON.parse(json.body.toString()).results).to.have.length(2);
    } finally {
      chunked.close();
    }
  });

  it("rejects past maxBytes with ResponseTooLargeError and leaves the rest unread", async () => {
    const exact = await serve((_req, res) => res.end("x".repeat(100)));
    try {
      expect((await request(`${exact.origin}/`, { maxBytes: 100 })).body).to.have.length(100);
      const over = await rejectionOf(request(`${exact.origin}/`, { maxBytes: 99 }));
      expect(over).to.be.instanceOf(ResponseTooLargeError);
    } finally {
      exact.close();
    }
    const gone = server.clientGone("/api/huge/");
    const error = await rejectionOf(request(`${server.origin}/api/huge/`, { maxBytes: 1 << 20 }));
    expect(error).to.be.instanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limit).to.equal(1 << 20);
    expect((error as ResponseTooLargeError).host).to.equal(`127.0.0.1:${server.port}`);
    await gone;
    expect(server.huge.finished).to.equal(false);
  });

  const text = JSON.stringify({ ok: true, name: "décodé" });
  const encodings: Record<string, Buffer> = {
    gzip: gzipSync(text),
    "x-gzip": gzipSync(text),
    deflate: deflateSync(text),
    br: brotliCompressSync(text),
    "br, gzip": gzipSync(brotliCompressSync(text)),
  };
  // Small when encoded, 8 MiB decoded.
  const bombs: Record<string, Buffer> = {
    gzip: gzipSync(Buffer.alloc(8 << 20)),
    br: brotliCompressSync(Buffer.alloc(8 << 20)),
  };

  it("decodes gzip, deflate, br and stacked codings; refuses a decompression bomb", async () => {
    const encoded = await serve((req, res) => {
      const [kind, coding] = decodeURIComponent(req.url ?? "")
        .split("/")
        .slice(1) as [string, string];
      const body = (kind === "bomb" ? bombs : encodings)[coding] as Buffer;
      res.writeHead(200, { "content-encoding": coding, "content-length": body.byteLength });
      res.end(body);
    });
    try {
      for (const coding of Object.keys(encodings)) {
        const answer = await request(`${encoded.origin}/text/${encodeURIComponent(coding)}`);
        expect(answer.body.toString(), coding).to.equal(text);
      }
      // Raw deflate under the name "deflate", as some servers send it: read as fetch reads it.
      const raw = await serve((_req, res) => {
        const body = deflateRawSync(Buffer.from(text));
        res.writeHead(200, { "content-encoding": "deflate", "content-length": body.byteLength });
        res.end(body);
      });
      try {
        expect((await request(`${raw.origin}/`)).body.toString()).to.equal(text);
      } finally {
        raw.close();
      }
      for (const [coding, bomb] of Object.entries(bombs)) {
        expect(bomb.byteLength, coding).to.be.below(64 * 1024);
        const url = `${encoded.origin}/bomb/${coding}`;
        const error = await rejectionOf(request(url, { maxBytes: 1 << 20 }));
        expect(error, coding).to.be.instanceOf(ResponseTooLargeError);
        expect((await request(url, { maxBytes: 8 << 20 })).body, coding).to.have.length(8 << 20);
      }
    } finally {
      encoded.close();
    }
  });

  it("answers at the head with an empty body for maxBytes: 0, a 204 with a Content-Length too", async () => {
    const answer = await request(`${server.origin}/api/huge/`, { maxBytes: 0 });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.have.length(0);
    expect(server.huge.finished).to.equal(false);
    const noContent = await serve((_req, res) => {
      res.writeHead(204, { "content-length": "10" }).end();
    });
    try {
      const empty = await request(`${noContent.origin}/`, { maxBytes: 0 });
      expect(empty.status).to.equal(204);
      expect(empty.body).to.have.length(0);
      // A 204 has no body whatever its Content-Length says, with the default cap too.
      const unread = await request(`${noContent.origin}/`);
      expect(unread.status).to.equal(204);
      expect(unread.body).to.have.length(0);
    } finally {
      noContent.close();
    }
  });

  it("rejects an abort with the signal's reason; the server sees the connection close", async () => {
    const controller = new AbortController();
    const arrived = server.nextRequest("/api/slow/");
    const gone = server.clientGone("/api/slow/");
    const pending = request(`${server.origin}/api/slow/`, { signal: controller.signal });
    await arrived;
    const reason = new Error("caller gave up");
    controller.abort(reason);
    expect(await rejectionOf(pending)).to.equal(reason);
    await gone;

    const before = server.requests.length;
    const early = new Error("gave up before asking");
    const aborted = request(`${server.origin}/api/products/`, { signal: AbortSignal.abort(early) });
    expect(await rejectionOf(aborted)).to.equal(early);
    expect(server.requests.length).to.equal(before);
  });

  it("rejects an abort while the body streams with the reason; the connection closes", async () => {
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    let closedEarly = false;
    const stalls = await serve((_req, res) => {
      res.on("close", () => (closedEarly = !res.writableFinished));
      // The head and a first chunk, then nothing: the abort comes once they are on the wire.
      res.writeHead(200, { "content-length": 1000 });
      res.write("[1,", () => controller.abort(reason));
    });
    try {
      const pending = request(`${stalls.origin}/`, { signal: controller.signal });
      expect(await rejectionOf(pending)).to.equal(reason);
      while (!closedEarly) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      stalls.close();
    }
  });

  it("reuses one kept-alive connection for sequential requests to one origin", async () => {
    const counting = await countingServer((_req, res) => res.end("ok"));
    try {
      for (let i = 0; i < 2; i++) {
        expect((await request(`${counting.origin}/`)).body.toString()).to.equal("ok");
      }
      // undici hands a kept-alive socket back to its pool one event-loop turn after the answer
      // ended (client-h1.js: "We must wait a full event loop cycle to reuse this socket"); a
      // request sent sooner opens a second connection. The guarded fetch waits that turn in its
      // `send`; this test deliberately waits nothing, as a caller reading answers one after
      // another does not.
      expect(counting.connections).to.equal(1);
    } finally {
      counting.close();
    }
  });

  it("follows a same-origin redirect over the same connection: one lookup for both hops", async () => {
    const counting = await countingServer((req, res) => {
      if (req.url === "/from") res.writeHead(302, { location: "/to", "content-length": 0 }).end();
      else res.end("landed");
    });
    try {
      const dns = fakeDns({ "reuse.example": ["127.0.0.1"] });
      const named = requestWith({ allowPrivateNetworks: true, resolve: dns.resolve });
      const answer = await named(`http://reuse.example:${counting.port}/from`);
      expect(answer.body.toString()).to.equal("landed");
      expect(answer.url).to.equal(`http://reuse.example:${counting.port}/to`);
      expect(dns.calls).to.deep.equal(["reuse.example"]);
      expect(counting.connections).to.equal(1);
    } finally {
      counting.close();
    }
  });

  it("gives the server's reason phrase as statusText, else the standard one", async () => {
    const phrases = await serve((req, res) => {
      if (req.url === "/teapot") res.writeHead(418, "Short And Stout").end();
      else res.writeHead(404, "").end(); // a status line with an empty reason phrase
    });
    try {
      expect((await request(`${phrases.origin}/teapot`)).statusText).to.equal("Short And Stout");
      const missing = await request(`${phrases.origin}/missing`);
      expect(missing.status).to.equal(404);
      expect(missing.statusText).to.equal("Not Found");
    } finally {
      phrases.close();
    }
  });
});
