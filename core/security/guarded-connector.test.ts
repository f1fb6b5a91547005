import { once } from "node:events";
import http from "node:http";
import https from "node:https";
import type net from "node:net";
import { expect } from "chai";
import { Agent, type buildConnector, fetch as undiciFetch } from "undici";
import { selfSignedCert } from "../../test/helpers/self-signed-cert.ts";
import { guardedConnector } from "./guarded-connector.ts";
import { parseOutboundAllowList } from "./outbound-allow-list.ts";
import { fakeDns } from "./outbound-guard-fixtures.ts";
import { OutboundBlockedError, OutboundPolicy } from "./outbound-policy.ts";

/** What `connect` answers for one connection, asked as undici asks. */
function connectThrough(
  connect: buildConnector.connector,
  target: { hostname: string; protocol: "http:" | "https:"; port: string },
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    connect({ ...target, host: target.hostname }, (error, socket) => {
      if (error) reject(error);
      else resolve(socket);
    });
  });
}

async function failureOf(promise: Promise<net.Socket>): Promise<Error> {
  try {
    (await promise).destroy();
  } catch (error) {
    return error as Error;
  }
  return expect.fail("expected the connection to fail");
}

describe("guarded connector", () => {
  let accepted = 0;
  const server = http.createServer((_req, res) => res.end("ok"));
  server.on("connection", () => accepted++);
  let port = 0;
  before(async () => {
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    port = (server.address() as net.AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("refuses an IP literal itself, as undici hands it over (IPv6 without brackets)", async () => {
    const connect = guardedConnector(new OutboundPolicy({ allowPrivateNetworks: false }));
    const before = accepted;
    for (const hostname of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const error = await failureOf(
        connectThrough(connect, { hostname, protocol: "http:", port: String(port) }),
      );
      expect(error, hostname).to.be.instanceOf(OutboundBlockedError);
      expect(error.message, hostname).to.match(/is a loopback address/);
    }
    expect(accepted).to.equal(before);
  });

  it("judges each connection's own port, in any order, the scheme's default when none is given", async () => {
    const dns = fakeDns({ "shop.internal": ["127.0.0.1"] });
    const policy = new OutboundPolicy({
      allowPrivateNetworks: false,
      allow: parseOutboundAllowList(`shop.internal:${port},shop.internal:443`),
      resolve: dns.resolve,
    });
    // One connector for every connection, as one Agent has.
    const connector = guardedConnector(policy, { timeout: 2000 });
    const connect = (p: string, protocol: "http:" | "https:" = "http:") =>
      connectThrough(connector, { hostname: "shop.internal", protocol, port: p });

    const allowed = await connect(String(port));
    expect(allowed.remoteAddress).to.equal("127.0.0.1");
    expect(allowed.remotePort).to.equal(port);
    allowed.destroy();
    const other = await failureOf(connect(String(port + 1)));
    expect(other).to.be.instanceOf(OutboundBlockedError);
    expect(other.message).to.match(/^outbound request to shop\.internal refused: it resolves/);
    (await connect(String(port))).destroy();

    // undici passes "" for a URL without a port: http means 80 (not listed), https 443 (listed).
    expect(await failureOf(connect("", "http:"))).to.be.instanceOf(OutboundBlockedError);
    const https443 = await connect("", "https:").then(
      (socket) => socket.destroy(),
      (error: unknown) => error,
    );
    expect(https443).not.to.be.instanceOf(OutboundBlockedError);
    expect(dns.calls).to.have.length(5);
  });

  it("makes undici verify TLS against the host NAME, connected to the checked address", async function () {
    const pair = selfSignedCert("shop.example");
    if (pair === undefined) return this.skip();
    const secure = https.createServer(pair, (_req, res) => res.end("secure"));
    secure.listen(0, "127.0.0.1");
    await once(secure, "listening");
    const securePort = (secure.address() as net.AddressInfo).port;
    const dns = fakeDns({ "shop.example": ["127.0.0.1"], "other.example": ["127.0.0.1"] });
    const policy = new OutboundPolicy({ allowPrivateNetworks: true, resolve: dns.resolve });
    const dispatcher = new Agent({ connect: guardedConnector(policy, { ca: pair.cert }) });
    const cause = async (url: string) => {
      const error = await undiciFetch(url, { dispatcher }).then(
        () => expect.fail(`${url} should fail`),
        (error: unknown) => error as TypeError & { cause: NodeJS.ErrnoException },
      );
      expect(error).to.be.instanceOf(TypeError);
      return error.cause.code;
    };
    try {
      const response = await undiciFetch(`https://shop.example:${securePort}/`, { dispatcher });
      expect(await response.text()).to.equal("secure");
      expect(dns.calls).to.deep.equal(["shop.example"]);
      // Same server and certificate, reached by another name or by its address: refused.
      expect(await cause(`https://other.example:${securePort}/`)).to.equal(
        "ERR_TLS_CERT_ALTNAME_INVALID",
      );
      expect(await cause(`https://127.0.0.1:${securePort}/`)).to.equal(
        "ERR_TLS_CERT_ALTNAME_INVALID",
      );
    } finally {
      await dispatcher.close();
      secure.closeAllConnections();
      secure.close();
    }
  });
});
