/**
 * The guarded plain request on what the guard refuses and how it follows redirects: the same rules
 * as the guarded fetch (outbound-guard*.test.ts), over the same guarded Agent, against real local
 * servers: blocked addresses and names, schemes, credentials, redirects, and the headers it sends.
 */
import { once } from "node:events";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { Agent } from "undici";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import { selfSignedCert } from "../../test/helpers/self-signed-cert.ts";
import { guardedConnector } from "./guarded-connector.ts";
import { guardedRequest } from "./guarded-request.ts";
import { guardedAgent } from "./outbound-guard.ts";
import { fakeDns, refusalOf, serve } from "./outbound-guard-fixtures.ts";
import { OutboundPolicy, type OutboundPolicyOptions } from "./outbound-policy.ts";

describe("guarded request", () => {
  let server: DrfServer;
  let requestsBefore: number;
  /** The requests the server received during this test. */
  const requestsNow = () => server.requests.slice(requestsBefore);
  const agents: Agent[] = [];
  /** The guarded request of a policy built from `options`, on a guarded Agent of its own. */
  const requestWith = (options: OutboundPolicyOptions, extra: { maxRedirects?: number } = {}) => {
    const policy = new OutboundPolicy(options);
    const agent = guardedAgent({ policy });
    agents.push(agent);
    return guardedRequest(agent, { policy, ...extra });
  };
  before(async () => {
    server = await startDrfServer();
  });
  beforeEach(() => {
    requestsBefore = server.requests.length;
  });
  after(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await server.close();
  });

  describe("with private networks not allowed", () => {
    const dns = fakeDns({
      "internal.example": ["127.0.0.1"],
      "private.example": ["10.0.0.5"],
      "metadata.example": ["169.254.169.254"],
    });
    const request = requestWith({ allowPrivateNetworks: false, resolve: dns.resolve });

    for (const template of [
      "http://127.0.0.1:PORT/api/products/",
      "http://[::1]:PORT/api/products/",
      "http://[::ffff:127.0.0.1]:PORT/api/products/",
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/iam/",
    ]) {
      it(`refuses the IP literal of ${template} before connecting`, async () => {
        const url = template.replace("PORT", String(server.port));
        const error = await refusalOf(request(url));
        expect(error.host, url).to.equal(new URL(url).hostname);
        expect(error.message, url).to.match(
          /private networks are not allowed|a cloud metadata address, which is never allowed$/,
        );
        expect(requestsNow()).to.deep.equal([]);
      });
    }

    it("refuses a name resolving to a loopback, private or metadata address before connecting", async () => {
      const reasons: Record<string, RegExp> = {
        [`internal.example:${server.port}`]: /resolves to a loopback address/,
        "private.example": /resolves to a private address/,
        "metadata.example": /resolves to a cloud metadata address, which is never allowed$/,
      };
      for (const [host, reason] of Object.entries(reasons)) {
        const error = await refusalOf(request(`http://${host}/api/products/`));
        expect(error.message, host).to.match(reason);
        expect(error.host, host).to.equal(host.split(":")[0]);
      }
      expect(dns.calls).to.include.members(["internal.example", "metadata.example"]);
      expect(requestsNow()).to.deep.equal([]);
    });

    for (const url of ["ftp://example.com/file", "file:///etc/passwd", "gopher://x/"]) {
      it(`refuses another scheme: ${url}`, async () => {
        const error = await refusalOf(request(url));
        expect(error.message, url).to.include("only http: and https: URLs are allowed");
      });
    }

    it("refuses credentials in the URL, string or URL object, without quoting them", async () => {
      for (const url of [
        `http://admin:hunter2secret@127.0.0.1:${server.port}/api/products/`,
        new URL(`http://u:hunter2secret@127.0.0.1:${server.port}/`),
      ]) {
        const error = await refusalOf(request(url));
        expect(error.message).to.equal(
          "outbound request to 127.0.0.1 refused: credentials in the URL are not allowed",
        );
      }
      expect(requestsNow()).to.deep.equal([]);
    });
  });

  describe("with private networks allowed", () => {
    const request = requestWith({ allowPrivateNetworks: true });

    it("follows a same-host redirect: the last hop's body and URL, redirected", async () => {
      const answer = await request(`${server.origin}/api/redirect-here/?limit=1`);
      expect(answer.status).to.equal(200);
      expect(answer.redirected).to.equal(true);
      expect(answer.url).to.equal(`${server.origin}/api/products/?limit=1`);
      expect(Buffer.isBuffer(answer.body)).to.equal(true);
      expect(JSON.parse(answer.body.toString()).results).to.have.length(1);
      expect(requestsNow().map((r) => r.url)).to.deep.equal([
        "/api/redirect-here/?limit=1",
        "/api/products/?limit=1",
      ]);
    });

    it("turns a 303 after a POST into a GET without body or content-* headers; 307 keeps them", async () => {
      const echo = await serve((req, res) => {
        if (req.url !== "/landing") {
          const status = Number(req.url?.slice(1));
          res.writeHead(status, { location: "/landing", "content-length": 0 }).end();
          return;
        }
        let length = 0;
        req.on("data", (chunk: Buffer) => (length += chunk.byteLength));
        req.on("end", () => {
          const contentHeaders = Object.keys(req.headers).filter((h) => h.startsWith("content-"));
          res.end(JSON.stringify({ method: req.method, contentHeaders, length }));
        });
      });
      try {
        const post = async (status: number) => {
          const answer = await request(`${echo.origin}/${status}`, {
            method: "POST",
            headers: { "Content-Type": "application/json", "Content-Language": "en" },
            body: '{"a":1}',
          });
          return JSON.parse(answer.body.toString());
        };
        expect(await post(303)).to.deep.equal({ method: "GET", contentHeaders: [], length: 0 });
        expect(await post(307)).to.deep.equal({
          method: "POST",
          contentHeaders: ["content-type", "content-language", "content-length"],
          length: 7,
        });
      } finally {
        echo.close();
      }
    });

    it("refuses a redirect to another host without contacting it", async () => {
      const error = await refusalOf(request(`${server.origin}/api/redirect-away/`));
      expect(error.message).to.equal(
        "outbound request to 127.0.0.1 refused: it redirected to another host (localhost); " +
          "only same-host redirects are followed",
      );
      expect(requestsNow().map((r) => r.path)).to.deep.equal(["/api/redirect-away/"]);
    });

    it("refuses a redirect from https to plain http on the same host", async function () {
      const pair = selfSignedCert("shop.example");
      if (pair === undefined) return this.skip();
      let plainRequests = 0;
      const plain = await serve((_req, res) => res.end(String(++plainRequests)));
      const secure = https.createServer(pair, (_req, res) => {
        res.writeHead(302, { location: `http://shop.example:${plain.port}/`, "content-length": 0 });
        res.end();
      });
      secure.listen(0, "127.0.0.1");
      await once(secure, "listening");
      const { port } = secure.address() as AddressInfo;
      const dns = fakeDns({ "shop.example": ["127.0.0.1"] });
      const policy = new OutboundPolicy({ allowPrivateNetworks: true, resolve: dns.resolve });
      // The guarded Agent with the test certificate trusted: the same connector as guardedAgent's.
      const agent = new Agent({ connect: guardedConnector(policy, { ca: pair.cert }) });
      try {
        const secureRequest = guardedRequest(agent, { policy });
        const error = await refusalOf(secureRequest(`https://shop.example:${port}/`));
        expect(error.message).to.equal(
          "outbound request to shop.example refused: it redirected from https to plain http",
        );
        expect(plainRequests).to.equal(0);
      } finally {
        await agent.close();
        secure.closeAllConnections();
        secure.close();
        plain.close();
      }
    });

    it("stops after maxRedirects (5 by default) with OutboundBlockedError", async () => {
      const error = await refusalOf(request(`${server.origin}/api/redirect-loop/0/`));
      expect(error.message).to.equal(
        "outbound request to 127.0.0.1 refused: it redirected more than 5 times",
      );
      expect(requestsNow()).to.have.length(6);
      requestsBefore = server.requests.length;
      const strict = requestWith({ allowPrivateNetworks: true }, { maxRedirects: 1 });
      await refusalOf(strict(`${server.origin}/api/redirect-loop/0/`));
      expect(requestsNow()).to.have.length(2);
    });

    it('answers the 3xx itself with redirect: "manual"', async () => {
      const answer = await request(`${server.origin}/api/redirect-away/`, { redirect: "manual" });
      expect(answer.status).to.equal(302);
      expect(answer.headers.location).to.match(/^http:\/\/localhost:\d+\/api\/products\/$/);
      expect(answer.redirected).to.equal(false);
      expect(answer.url).to.equal(`${server.origin}/api/redirect-away/`);
      expect(answer.body).to.have.length(0);
      expect(requestsNow()).to.have.length(1);
    });

    it("drops the caller's Host, sends the defaults, keeps the caller's headers whatever their case", async () => {
      const arrived = server.nextRequest("/api/products/");
      await request(`${server.origin}/api/products/?limit=1`, {
        headers: { Host: "evil.example", ACCEPT: "application/json", "X-Trace-Id": "t1" },
      });
      const given = (await arrived).headers;
      expect(given.host).to.equal(`127.0.0.1:${server.port}`);
      expect(given.accept).to.equal("application/json");
      expect(given["x-trace-id"]).to.equal("t1");
      expect(given["user-agent"]).to.equal("sitevoice");
      expect(given["accept-encoding"]).to.equal("gzip, deflate, br");

      const plain = server.nextRequest("/api/products/");
      await request(`${server.origin}/api/products/?limit=1`);
      const defaults = (await plain).headers;
      expect(defaults.accept).to.equal("*/*");
      expect(defaults["user-agent"]).to.equal("sitevoice");
      expect(defaults["accept-encoding"]).to.equal("gzip, deflate, br");
    });
  });
});
