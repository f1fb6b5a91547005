/**
 * The outbound guard with private networks allowed, on connections and redirects: it connects to
 * the address it checked, resolving once, and follows only same-host redirects, up to a limit.
 */
import { expect } from "chai";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import { fakeDns, guardedWith, refusalOf, serve } from "./outbound-guard-fixtures.ts";

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
  });
});
