import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { expect } from "chai";
import { selfSignedCert } from "../../test/helpers/self-signed-cert.ts";
import { guardedSocket } from "./guarded-socket.ts";
import { parseOutboundAllowList } from "./outbound-allow-list.ts";
import { fakeDns } from "./outbound-guard-fixtures.ts";
import { OutboundBlockedError, OutboundPolicy } from "./outbound-policy.ts";

/** A listener counting the connections it gets (and ending each at once). */
async function listen(
  where: { port: number; host: string } | { path: string },
): Promise<{ port: number; accepted: () => number; close(): Promise<void> }> {
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    socket.end();
  });
  server.listen(where);
  await once(server, "listening");
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : 0,
    accepted: () => accepted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The 'error' the socket ends with, attached after connect() as drivers do. */
async function failureOf(socket: net.Socket): Promise<NodeJS.ErrnoException> {
  const [error] = (await once(socket, "error")) as [NodeJS.ErrnoException];
  return error;
}

describe("guarded socket", () => {
  const strict = new OutboundPolicy({ allowPrivateNetworks: false });
  let local: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    local = await listen({ port: 0, host: "127.0.0.1" });
  });
  after(() => local.close());

  it("refuses a private IP literal without connecting, after connect() returned", async () => {
    const before = local.accepted();
    const socket = guardedSocket(strict);
    expect(socket.connect(local.port, "127.0.0.1")).to.equal(socket);
    const error = await failureOf(socket);
    expect(error).to.be.instanceOf(OutboundBlockedError);
    expect(error.code).to.equal("OUTBOUND_BLOCKED");
    expect((error as OutboundBlockedError).kind).to.equal("address");
    expect(socket.destroyed).to.equal(true);
    expect(local.accepted()).to.equal(before);
  });

  it("refuses an IPv6 literal in brackets, as pg hands it over", async () => {
    const socket = guardedSocket(strict);
    socket.connect(local.port, "[::1]");
    expect((await failureOf(socket)).code).to.equal("OUTBOUND_BLOCKED");
  });

  it("refuses a Unix socket path, even with private networks allowed", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-sock-"));
    const unix = await listen({ path: path.join(dir, "db.sock") });
    try {
      const socket = guardedSocket(new OutboundPolicy({ allowPrivateNetworks: true }));
      socket.connect(path.join(dir, "db.sock"));
      const error = await failureOf(socket);
      expect((error as OutboundBlockedError).kind).to.equal("local-socket");
      const viaOptions = guardedSocket(new OutboundPolicy({ allowPrivateNetworks: true }));
      viaOptions.connect({ path: path.join(dir, "db.sock") });
      expect((await failureOf(viaOptions)).code).to.equal("OUTBOUND_BLOCKED");
      expect(unix.accepted()).to.equal(0);
    } finally {
      await unix.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("connects to an allowed address and port", async () => {
    const policy = new OutboundPolicy({
      allowPrivateNetworks: false,
      allow: parseOutboundAllowList(`127.0.0.1:${local.port}`),
    });
    const socket = guardedSocket(policy);
    const connected = once(socket, "connect");
    socket.connect(local.port, "127.0.0.1");
    await connected;
    expect(socket.remoteAddress).to.equal("127.0.0.1");
    socket.destroy();
  });

  it("resolves a host name once, through the policy, and connects to the checked address", async () => {
    const dns = fakeDns({ "db.example": ["127.0.0.1"] });
    const policy = new OutboundPolicy({
      allowPrivateNetworks: false,
      allow: parseOutboundAllowList("db.example"),
      resolve: dns.resolve,
    });
    const socket = guardedSocket(policy);
    const connected = once(socket, "connect");
    socket.connect(local.port, "db.example");
    await connected;
    expect(socket.remoteAddress).to.equal("127.0.0.1");
    expect(dns.calls).to.deep.equal(["db.example"]);
    socket.destroy();
  });

  it("refuses a host name that resolves to a private address, before connecting", async () => {
    const before = local.accepted();
    const dns = fakeDns({ "internal.example": ["127.0.0.1"] });
    const socket = guardedSocket(new OutboundPolicy({ allowPrivateNetworks: false, ...dns }));
    socket.connect(local.port, "internal.example");
    const error = await failureOf(socket);
    expect(error.message).to.match(/^outbound request to internal\.example refused: it resolves/);
    expect(local.accepted()).to.equal(before);
  });

  it("keeps the host name for TLS on top: the certificate is checked against the name", async function () {
    const pair = selfSignedCert("db.example");
    if (pair === undefined) return this.skip();
    const server = tls.createServer(pair);
    server.on("secureConnection", (socket) => socket.end());
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as net.AddressInfo;
    const dns = fakeDns({ "db.example": ["127.0.0.1"], "other.example": ["127.0.0.1"] });
    const policy = new OutboundPolicy({ allowPrivateNetworks: true, resolve: dns.resolve });
    /** TLS over a guarded socket, with no servername: tls checks the socket's own host. */
    const handshake = (name: string) =>
      new Promise<void>((resolve, reject) => {
        const raw = guardedSocket(policy);
        raw.connect(port, name);
        const secure = tls.connect({ socket: raw, ca: pair.cert }, () => {
          secure.destroy();
          resolve();
        });
        secure.on("error", reject);
      });
    try {
      await handshake("db.example");
      let refused: unknown;
      await handshake("other.example").catch((error: unknown) => (refused = error));
      expect((refused as NodeJS.ErrnoException).code).to.equal("ERR_TLS_CERT_ALTNAME_INVALID");
    } finally {
      server.close();
    }
  });
});
