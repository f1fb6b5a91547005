/**
 * Where the guarded fetch and the guarded request send a caller's credentials when redirected:
 * to the first URL's exact origin (scheme, host and port) only. Two real servers on two ports of
 * 127.0.0.1 (and one on https, for another scheme), the first redirecting to the second, which
 * records what arrives.
 */
import { once } from "node:events";
import type http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { Agent } from "undici";
import { selfSignedCert } from "../../test/helpers/self-signed-cert.ts";
import { guardedConnector } from "./guarded-connector.ts";
import { guardedRequest } from "./guarded-request.ts";
import { guardedAgent, guardedFetch } from "./outbound-guard.ts";
import { fakeDns, refusalOf, serve } from "./outbound-guard-fixtures.ts";
import { OutboundPolicy } from "./outbound-policy.ts";

/** What a caller sends that must not leave its origin: a key, a token, a cookie, a custom one. */
const CREDENTIALS = {
  Authorization: "Bearer sk_live_TOPSECRET",
  "X-Api-Key": "key_TOPSECRET",
  Cookie: "session=TOPSECRET",
  "Proxy-Authorization": "Basic VE9QU0VDUkVU",
  "X-Tenant": "tenant-TOPSECRET",
};
const CREDENTIAL_NAMES = Object.keys(CREDENTIALS).map((name) => name.toLowerCase());

type Send = (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string },
) => Promise<{ status: number; url: string }>;

/** The two ways out, each over `agent`: a call and what it answers. */
const MECHANISMS: Record<string, (policy: OutboundPolicy, agent: Agent) => Send> = {
  "guarded fetch": (policy, agent) => {
    const guarded = guardedFetch({ policy }, agent);
    return async (url, init) => {
      const response = await guarded(url, init);
      await response.arrayBuffer();
      return { status: response.status, url: response.url };
    };
  },
  "guarded request": (policy, agent) => {
    const request = guardedRequest(agent, { policy });
    return async (url, init) => {
      const answer = await request(url, init);
      return { status: answer.status, url: answer.url };
    };
  },
};

/** A server recording each request's path and headers; `/redirect/<status>?to=` redirects. */
async function recordingServer() {
  const arrived: { path: string; headers: http.IncomingHttpHeaders }[] = [];
  const handler: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const redirect = /^\/redirect\/(\d+)$/.exec(url.pathname);
    req.resume();
    if (redirect !== null) {
      res.writeHead(Number(redirect[1]), {
        location: url.searchParams.get("to") ?? "/",
        "content-length": 0,
      });
      res.end();
      return;
    }
    arrived.push({ path: url.pathname, headers: req.headers });
    res.end("landed");
  };
  return { arrived, handler };
}

const credentialsIn = (headers: http.IncomingHttpHeaders) =>
  CREDENTIAL_NAMES.filter((name) => headers[name] !== undefined);

for (const [mechanism, make] of Object.entries(MECHANISMS)) {
  describe(`${mechanism}: credentials on a redirect`, () => {
    const policy = new OutboundPolicy({ allowPrivateNetworks: true });
    const agent = guardedAgent({ policy });
    const send = make(policy, agent);
    let first: Awaited<ReturnType<typeof recordingServer>>;
    let second: Awaited<ReturnType<typeof recordingServer>>;
    let a: Awaited<ReturnType<typeof serve>>;
    let b: Awaited<ReturnType<typeof serve>>;

    beforeEach(async () => {
      first = await recordingServer();
      second = await recordingServer();
      a = await serve(first.handler);
      b = await serve(second.handler);
    });
    afterEach(() => {
      a.close();
      b.close();
    });
    after(() => agent.close());

    /** A URL of server `a` redirecting with `status` to `to`. */
    const via = (status: number, to: string) =>
      `${a.origin}/redirect/${status}?to=${encodeURIComponent(to)}`;

    for (const status of [301, 302, 303, 307, 308]) {
      it(`sends none of them on a ${status} to another port of the same host`, async () => {
        const answer = await send(via(status, `${b.origin}/landing`), { headers: CREDENTIALS });
        expect(answer).to.deep.equal({ status: 200, url: `${b.origin}/landing` });
        expect(second.arrived).to.have.length(1);
        expect(credentialsIn(second.arrived[0]!.headers)).to.deep.equal([]);
        expect(second.arrived[0]!.headers["user-agent"]).to.equal("sitevoice");
      });
    }

    for (const status of [302, 307, 308]) {
      it(`keeps them on a ${status} within the origin`, async () => {
        const answer = await send(via(status, "/landing"), { headers: CREDENTIALS });
        expect(answer).to.deep.equal({ status: 200, url: `${a.origin}/landing` });
        expect(credentialsIn(first.arrived[0]!.headers)).to.deep.equal(CREDENTIAL_NAMES);
        expect(first.arrived[0]!.headers.authorization).to.equal(CREDENTIALS.Authorization);
      });
    }

    it("does not send them again when a later hop comes back to the origin", async () => {
      const back = `${b.origin}/redirect/302?to=${encodeURIComponent(`${a.origin}/landing`)}`;
      const answer = await send(via(302, back), { headers: CREDENTIALS });
      expect(answer).to.deep.equal({ status: 200, url: `${a.origin}/landing` });
      expect(first.arrived).to.have.length(1);
      expect(credentialsIn(first.arrived[0]!.headers)).to.deep.equal([]);
    });

    for (const status of [307, 308]) {
      it(`refuses a ${status} that would send a POST's body to another port, without contacting it`, async () => {
        const error = await refusalOf(
          send(via(status, `${b.origin}/landing`), {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: "client_secret=TOPSECRET",
          }),
        );
        expect(error.message).to.equal(
          `outbound request to 127.0.0.1 refused: it redirected a request with a body to another origin (${b.origin})`,
        );
        expect(second.arrived).to.deep.equal([]);
      });
    }

    it("sends a 303 after a POST to another port as a GET without body or credentials", async () => {
      const answer = await send(via(303, `${b.origin}/landing`), {
        method: "POST",
        headers: { ...CREDENTIALS, "content-type": "application/x-www-form-urlencoded" },
        body: "client_secret=TOPSECRET",
      });
      expect(answer.status).to.equal(200);
      expect(credentialsIn(second.arrived[0]!.headers)).to.deep.equal([]);
      expect(second.arrived[0]!.headers["content-type"]).to.equal(undefined);
    });

    it("sends none of them on a redirect from http to https on the same host", async function () {
      const pair = selfSignedCert("shop.example");
      if (pair === undefined) return this.skip();
      const secureServer = await recordingServer();
      const secure = https.createServer(pair, secureServer.handler);
      secure.listen(0, "127.0.0.1");
      await once(secure, "listening");
      const { port } = secure.address() as AddressInfo;
      const dns = fakeDns({ "shop.example": ["127.0.0.1"] });
      const tlsPolicy = new OutboundPolicy({ allowPrivateNetworks: true, resolve: dns.resolve });
      // The guarded Agent with the test certificate trusted: the same connector as guardedAgent's.
      const tlsAgent = new Agent({ connect: guardedConnector(tlsPolicy, { ca: pair.cert }) });
      try {
        const sendTls = make(tlsPolicy, tlsAgent);
        const target = `https://shop.example:${port}/landing`;
        const answer = await sendTls(
          `http://shop.example:${a.port}/redirect/302?to=${encodeURIComponent(target)}`,
          { headers: CREDENTIALS },
        );
        expect(answer).to.deep.equal({ status: 200, url: target });
        expect(secureServer.arrived).to.have.length(1);
        expect(credentialsIn(secureServer.arrived[0]!.headers)).to.deep.equal([]);
      } finally {
        await tlsAgent.close();
        secure.closeAllConnections();
        secure.close();
      }
    });
  });
}
