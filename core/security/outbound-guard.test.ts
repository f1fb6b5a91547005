/**
 * The outbound guard with private networks not allowed: what it refuses before connecting (blocked
 * ranges, names resolving into them, other schemes, credentials, redirects to a blocked address)
 * and what an allow-list entry lets through.
 */
import { expect } from "chai";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import { parseOutboundAllowList } from "./outbound-allow-list.ts";
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
});
