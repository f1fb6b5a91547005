import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { expect } from "chai";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import { guardedFetch } from "./outbound-guard.ts";
import { parseOutboundAllowList } from "./outbound-allow-list.ts";
import {
  OutboundBlockedError,
  OutboundPolicy,
  type OutboundPolicyOptions,
  type ResolvedAddress,
} from "./outbound-policy.ts";

/** The guarded fetch of a policy built from `options`. */
const guardedWith = (
  options: OutboundPolicyOptions,
  extra: { maxRedirects?: number; idleTimeoutMs?: number } = {},
) => guardedFetch({ policy: new OutboundPolicy(options), ...extra });

/** A throwaway server on 127.0.0.1 for what the DRF stand-in does not do. */
async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function refusalOf(promise: Promise<unknown>): Promise<OutboundBlockedError> {
  try {
    await promise;
  } catch (error) {
    expect(error, String(error)).to.be.instanceOf(OutboundBlockedError);
    return error as OutboundBlockedError;
  }
  return expect.fail("expected the request to be refused");
}

/** A resolver for made-up names, counting its calls; unknown names do not resolve. */
function fakeDns(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const entry = table[hostname];
    const addresses = typeof entry === "function" ? entry() : entry;
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    }
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, calls };
}

describe("outbound guard", () => {
  let server: DrfServer;
  /** How many requests the server had received when this test started. */
  let requestsBefore: number;
  /** The requests the server received during this test. */
  const requestsNow = () => server.requests.slice(requestsBefore);
  before(async () => {
    server = await startDrfServer();
  });
  beforeEach(() => {
    requestsBefore = server.requests.length;
  });
  after(() => server.close());

  describe("with private networks not allowed", () => {
    const guarded = guardedWith({ allowPrivateNetworks: false });

    describe("refuses IP literals of every blocked range before connecting", () => {
      // `PORT` is the test server's port, known only once it listens.
      const urls = [
        "http://127.0.0.1:PORT/api/products/",
        "http://[::1]:PORT/api/products/",
        "http://[::ffff:127.0.0.1]:PORT/api/products/",
        "http://2130706433:PORT/api/products/", // 127.0.0.1 in decimal; URL normalizes it
        "http://0.0.0.0:PORT/",
        "http://10.0.0.1/",
        "http://172.16.5.4/",
        "http://192.168.0.1/",
        "http://100.64.0.1/",
        "http://169.254.10.10/",
        "http://224.0.0.1/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://[ff02::1]/",
      ];
      for (const template of urls) {
        it(`refuses ${template} before connecting`, async () => {
          const url = template.replace("PORT", String(server.port));
          const error = await refusalOf(guarded(url));
          expect(error.message, url).to.match(/^outbound request to \S+ refused: /);
          expect(error.message, url).to.include("private networks are not allowed");
          expect(error.host, url).to.equal(new URL(url).hostname);
          expect(requestsNow()).to.deep.equal([]);
        });
      }
    });

    it("refuses an IPv4-compatible IPv6 literal that carries a loopback address", async () => {
      // The URL parser writes [::127.0.0.1] as [::7f00:1].
      const error = await refusalOf(guarded(`https://[::127.0.0.1]:${server.port}/`));
      expect(error.message).to.match(/is a loopback address/);
      expect(requestsNow()).to.deep.equal([]);
    });

    it("refuses Azure's wireserver (168.63.129.16) as a metadata address", async () => {
      const error = await refusalOf(guarded("http://168.63.129.16/metadata/instance"));
      expect(error.message).to.match(/a cloud metadata address, which is never allowed$/);
    });

    it("refuses the cloud metadata address as never allowed", async () => {
      const error = await refusalOf(guarded("http://169.254.169.254/latest/meta-data/iam/"));
      expect(error.message).to.equal(
        "outbound request to 169.254.169.254 refused: " +
          "169.254.169.254 is a cloud metadata address, which is never allowed",
      );
    });

    it("refuses a host name that resolves to a loopback address (localhost)", async () => {
      const error = await refusalOf(guarded(`http://localhost:${server.port}/api/products/`));
      expect(error.message).to.equal(
        "outbound request to localhost refused: it resolves to a loopback address, and " +
          "private networks are not allowed " +
          "(the operator can allow this host with SITEVOICE_OUTBOUND_ALLOW)",
      );
      expect(requestsNow()).to.deep.equal([]);
    });

    describe("checks every address of a name, and does not reveal which it found", () => {
      const dns = fakeDns({
        "internal.example": ["10.0.0.5"],
        "split.example": ["93.184.216.34", "127.0.0.1"],
        "v6.example": ["2606:2800:220:1:248:1893:25c8:1946", "fd12::7"],
        "mapped.example": ["::ffff:192.168.1.20"],
        "metadata.example": ["169.254.169.254"],
        "cgnat.example": ["100.72.0.9"],
      });
      const fetcher = guardedWith({ allowPrivateNetworks: false, resolve: dns.resolve });
      const reasons: Record<string, RegExp> = {
        "internal.example": /resolves to a private address/,
        "split.example": /resolves to a loopback address/,
        "v6.example": /resolves to a unique-local address/,
        "mapped.example": /resolves to a private address/,
        "metadata.example": /resolves to a cloud metadata address, which is never allowed$/,
        "cgnat.example": /resolves to a carrier-grade NAT \(shared\) address/,
      };
      for (const [name, reason] of Object.entries(reasons)) {
        it(`refuses ${name}, without naming the address it found`, async () => {
          const error = await refusalOf(fetcher(`https://${name}/v1/products`));
          expect(error.message, name).to.match(reason);
          expect(error.host).to.equal(name);
          expect(error.message).not.to.match(/\d+\.\d+\.\d+\.\d+|fd12|ffff/);
        });
      }
    });

    it("lets an allow-list address with a port through, on that port only", async () => {
      const fetcher = guardedWith({
        allowPrivateNetworks: false,
        allow: parseOutboundAllowList(`127.0.0.1:${server.port}`),
      });
      const response = await fetcher(`${server.origin}/api/products/?limit=1`);
      expect(response.status).to.equal(200);
      await response.arrayBuffer();
      const error = await refusalOf(fetcher(`http://127.0.0.1:${server.port + 1}/`));
      expect(error.message).to.match(/127\.0\.0\.1 is a loopback address/);
    });

    it("lets an allow-list host name through its lookup, on that port only", async () => {
      const dns = fakeDns({ "shop.internal": ["127.0.0.1"] });
      const fetcher = guardedWith({
        allowPrivateNetworks: false,
        allow: parseOutboundAllowList(`shop.internal:${server.port}`),
        resolve: dns.resolve,
      });
      const response = await fetcher(`http://shop.internal:${server.port}/api/products/`);
      expect(response.status).to.equal(200);
      await response.arrayBuffer();
      const error = await refusalOf(fetcher(`http://shop.internal:${server.port + 1}/`));
      expect(error.message).to.match(/^outbound request to shop\.internal refused: it resolves/);
    });

    for (const url of ["ftp://example.com/file", "file:///etc/passwd", "gopher://x/"]) {
      it(`refuses another scheme: ${url}`, async () => {
        const error = await refusalOf(guarded(url));
        expect(error.message, url).to.include("only http: and https: URLs are allowed");
      });
    }

    it("refuses credentials in the URL, without quoting them", async () => {
      const error = await refusalOf(guarded("https://admin:hunter2secret@api.example.com/x"));
      expect(error.message).to.equal(
        "outbound request to api.example.com refused: credentials in the URL are not allowed",
      );
    });

    it("refuses credentials in a URL object, without quoting them", async () => {
      const viaRequest = await refusalOf(guarded(new URL("https://u:hunter2secret@example.com/")));
      expect(viaRequest.message).not.to.include("hunter2secret");
    });
    it("checks every hop's new connection: a redirect to a private address of the same name is refused", async () => {
      // The name first answers an allowed address, then (a rebinding server, or a second record)
      // a private one; the redirect goes to another port, so it needs a connection of its own.
      let answers = 0;
      const dns = fakeDns({
        "shop.example": () => (answers++ === 0 ? ["127.0.0.1"] : ["10.0.0.5"]),
      });
      const hop = await serve((_req, res) => {
        const location = `http://shop.example:${server.port}/api/products/`;
        res.writeHead(302, { location, "content-length": 0 }).end();
      });
      try {
        const fetcher = guardedWith({
          allowPrivateNetworks: false,
          allow: parseOutboundAllowList("127.0.0.1"),
          resolve: dns.resolve,
        });
        const before = server.requests.length;
        const error = await refusalOf(fetcher(`http://shop.example:${hop.port}/`));
        expect(error.message).to.equal(
          "outbound request to shop.example refused: it resolves to a private address, and " +
            "private networks are not allowed " +
            "(the operator can allow this host with SITEVOICE_OUTBOUND_ALLOW)",
        );
        expect(dns.calls).to.deep.equal(["shop.example", "shop.example"]);
        expect(server.requests.length).to.equal(before);
      } finally {
        hop.close();
      }
    });
  });

  describe("with private networks allowed", () => {
    const guarded = guardedWith({ allowPrivateNetworks: true });

    it("reaches a local server by IP literal", async () => {
      const byIp = await guarded(`${server.origin}/api/products/?limit=2`);
      expect(byIp.status).to.equal(200);
      expect(((await byIp.json()) as { count: number }).count).to.equal(12);
      expect(byIp.url).to.equal(`${server.origin}/api/products/?limit=2`);
      expect(byIp.redirected).to.equal(false);
    });

    it("reaches a local server by name", async () => {
      const byName = await guarded(`http://localhost:${server.port}/api/plain/products/`);
      expect(((await byName.json()) as unknown[]).length).to.equal(12);
    });

    it("connects to the address it checked, resolving once (no DNS rebinding window)", async () => {
      // A rebinding server answers a harmless address to the check and another to the connect;
      // here later answers point where nothing listens, so a second resolution would fail.
      let answers = 0;
      const dns = fakeDns({
        "shop.example": () => (answers++ === 0 ? ["127.0.0.1"] : ["127.0.0.3"]),
      });
      const fetcher = guardedWith({ allowPrivateNetworks: true, resolve: dns.resolve });
      const arrived = server.nextRequest("/api/products/");
      const response = await fetcher(`http://shop.example:${server.port}/api/products/`);
      expect(response.status).to.equal(200);
      await response.arrayBuffer();
      expect(dns.calls).to.deep.equal(["shop.example"]);
      expect((await arrived).headers.host).to.equal(`shop.example:${server.port}`);
    });

    it("reuses a keep-alive socket without resolving the name again", async () => {
      const dns = fakeDns({ "reuse.example": ["127.0.0.1"] });
      const fetcher = guardedWith({ allowPrivateNetworks: true, resolve: dns.resolve });
      for (let i = 0; i < 3; i++) {
        const response = await fetcher(`http://reuse.example:${server.port}/api/products/`);
        expect(response.status).to.equal(200);
        await response.arrayBuffer();
      }
      expect(dns.calls).to.deep.equal(["reuse.example"]);
    });

    it("follows a redirect on the same host", async () => {
      const response = await guarded(`${server.origin}/api/redirect-here/?limit=1`);
      expect(response.status).to.equal(200);
      expect(response.redirected).to.equal(true);
      expect(response.url).to.equal(`${server.origin}/api/products/?limit=1`);
      expect(((await response.json()) as { results: unknown[] }).results).to.have.length(1);
    });

    it("refuses a redirect to another host without contacting it", async () => {
      const error = await refusalOf(guarded(`${server.origin}/api/redirect-away/`));
      expect(error.message).to.equal(
        "outbound request to 127.0.0.1 refused: it redirected to another host (localhost); " +
          "only same-host redirects are followed",
      );
      expect(requestsNow().map((r) => r.path)).to.deep.equal(["/api/redirect-away/"]);
    });

    it("refuses more than 5 redirects", async () => {
      const error = await refusalOf(guarded(`${server.origin}/api/redirect-loop/0/`));
      expect(error.message).to.equal(
        "outbound request to 127.0.0.1 refused: it redirected more than 5 times",
      );
      expect(requestsNow().length).to.equal(6);
    });

    it("refuses more redirects than it is told to follow (maxRedirects: 1)", async () => {
      const strict = guardedWith({ allowPrivateNetworks: true }, { maxRedirects: 1 });
      await refusalOf(strict(`${server.origin}/api/redirect-loop/0/`));
      expect(requestsNow().length).to.equal(2);
    });

    it("follows a same-origin redirect over the same connection: one lookup for both hops", async () => {
      const dns = fakeDns({ "reuse.example": ["127.0.0.1"] });
      const fetcher = guardedWith({ allowPrivateNetworks: true, resolve: dns.resolve });
      const url = `http://reuse.example:${server.port}/api/redirect-here/?limit=1`;
      const response = await fetcher(url);
      expect(response.redirected).to.equal(true);
      expect(response.url).to.equal(`http://reuse.example:${server.port}/api/products/?limit=1`);
      await response.arrayBuffer();
      expect(dns.calls).to.deep.equal(["reuse.example"]);
    });

    it("turns 303, and 301/302 after a POST, into a GET without a body; 307 keeps both", async () => {
      const echo = await serve((req, res) => {
        if (req.url !== "/landing") {
          const status = Number(req.url?.slice(1));
          res.writeHead(status, { location: "/landing", "content-length": 0 }).end();
          return;
        }
        let length = 0;
        req.on("data", (chunk: Buffer) => (length += chunk.byteLength));
        req.on("end", () =>
          res.end(
            JSON.stringify({
              method: req.method,
              type: req.headers["content-type"] ?? null,
              length,
            }),
          ),
        );
      });
      try {
        const post = (status: number) =>
          guarded(`${echo.origin}/${status}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: '{"a":1}',
          }).then((response) => response.json());
        const asGet = { method: "GET", type: null, length: 0 };
        expect(await post(303)).to.deep.equal(asGet);
        expect(await post(302)).to.deep.equal(asGet);
        expect(await post(301)).to.deep.equal(asGet);
        expect(await post(307)).to.deep.equal({
          method: "POST",
          type: "application/json",
          length: 7,
        });
      } finally {
        echo.close();
      }
    });

    it("hands the redirect itself back when redirect is manual", async () => {
      const response = await guarded(`${server.origin}/api/redirect-away/`, { redirect: "manual" });
      expect(response.status).to.equal(302);
      expect(response.headers.get("location")).to.match(/^http:\/\/localhost:/);
    });

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
        const fetcher = guardedWith({ allowPrivateNetworks: true }, { idleTimeoutMs: 300 });
        const started = Date.now();
        let caught: unknown;
        await fetcher(`${stalls.origin}/head`).catch((error: unknown) => (caught = error));
        expect(caught).to.be.instanceOf(TypeError);
        expect((caught as TypeError).message).to.equal("fetch failed");
        expect(Date.now() - started).to.be.below(5000);
        const response = await fetcher(`${stalls.origin}/body`);
        let bodyError: unknown;
        await response.text().catch((error: unknown) => (bodyError = error));
        expect(bodyError).to.be.instanceOf(TypeError);
        expect(Date.now() - started).to.be.below(5000);
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
