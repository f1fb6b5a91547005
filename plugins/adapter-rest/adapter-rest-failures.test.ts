/**
 * How the REST adapter fails: every backend failure as success:false with a clear message free of
 * credentials, unreachable backends, timeouts, aborts, oversized answers and the outbound guard.
 */
import http from "node:http";
import { expect } from "chai";
import type { DataAdapter } from "../../core/host/plugin.ts";
import type { GuardedRequest } from "../../core/security/guarded-request.ts";
import { startDrfServer, type DrfServer } from "../../test/helpers/drf-server.ts";
import type { RestConfig } from "./index.ts";
import { RestClient } from "./rest-client.ts";
import {
  BEARER_SECRET,
  HEADER_SECRET,
  closedPort,
  products,
  query,
  restAdapters,
  signal,
} from "./adapter-rest-fixtures.ts";

describe("REST adapter", () => {
  let server: DrfServer;
  const { restAdapter, closeHosts } = restAdapters();

  const api = () => `${server.origin}/api`;

  before(async () => {
    server = await startDrfServer();
  });
  after(async () => {
    await closeHosts();
    await server.close();
  });

  describe("failures", () => {
    const secretConfig = (baseUrl: string, extra: Partial<RestConfig> = {}): RestConfig => ({
      baseUrl,
      queryMode: "querystring",
      auth: { type: "bearer", value: BEARER_SECRET },
      headers: { "X-Tenant": HEADER_SECRET },
      ...extra,
    });

    /** Searches `source` and returns the failure message, checked free of credentials. */
    async function failure(adapter: DataAdapter, source: string, abort?: AbortSignal) {
      const result = await adapter.search({ ...products, source }, query(), {
        signal: abort ?? signal,
      });
      if (result.success) return expect.fail(`expected ${source} to fail`);
      expect(result.error).not.to.include(BEARER_SECRET);
      expect(result.error).not.to.include(HEADER_SECRET);
      return result.error;
    }

    it("turns every backend failure into success:false with a clear message", async () => {
      const adapter = await restAdapter(secretConfig(api()));
      const host = `127.0.0.1:${server.port}`;
      expect(await failure(adapter, "/status/503/")).to.equal(
        "backend answered 503 Service Unavailable",
      );
      expect(await failure(adapter, "/status/401/")).to.equal("backend answered 401 Unauthorized");
      expect(await failure(adapter, "/not-json/")).to.equal("backend answered invalid JSON");
      expect(await failure(adapter, "/wrong-shape/")).to.match(
        /^backend answered JSON that is neither/,
      );
      // A reset says no more than a refused or unreachable backend would.
      expect(await failure(adapter, "/drop/")).to.equal(`could not reach the backend at ${host}`);
      expect(await failure(adapter, "/redirect-away/")).to.equal(
        "outbound request to 127.0.0.1 refused: it redirected to another host (localhost); " +
          "only same-host redirects are followed",
      );
    });

    it("reports an unreachable backend without saying why (refused, reset, timed out)", async () => {
      const port = await closedPort();
      const adapter = await restAdapter(secretConfig(`http://127.0.0.1:${port}/api`));
      expect(await failure(adapter, "/products/")).to.equal(
        `could not reach the backend at 127.0.0.1:${port}`,
      );
      let caught: unknown;
      await adapter.test?.({ signal }).catch((error: unknown) => (caught = error));
      expect(String(caught)).to.match(
        new RegExp(`test failed: could not reach the backend at 127\\.0\\.0\\.1:${port}$`),
      );
      expect(String(caught)).not.to.include(BEARER_SECRET);
    });

    describe("gives refused, reset, connect timeout, unreachable and DNS failures one message", () => {
      const codes = ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"];
      for (const code of [...codes, "ENOTFOUND", "UND_ERR_CONNECT_TIMEOUT"]) {
        it(`says only that it could not reach the backend for ${code}`, async () => {
          // As the guarded request fails: with the socket's (or undici's) error itself.
          const failing: GuardedRequest = async () => {
            throw Object.assign(new Error(`connect ${code} 10.9.8.7:5432`), { code });
          };
          const client = new RestClient({
            request: failing,
            headers: {},
            timeoutMs: 1000,
            secrets: [],
          });
          const answer = await client.records(new URL("https://api.shop.example/v1/items"), signal);
          expect(answer, code).to.deep.equal({
            ok: false,
            error: "could not reach the backend at api.shop.example",
          });
        });
      }
    });

    it("stops at timeoutMs", async () => {
      const adapter = await restAdapter(secretConfig(api(), { timeoutMs: 100 }));
      const gone = server.clientGone("/api/slow/");
      expect(await failure(adapter, "/slow/")).to.match(
        new RegExp(`^backend at 127\\.0\\.0\\.1:${server.port} did not answer within \\d+ ms$`),
      );
      await gone;
    });

    it("closes the backend request when the caller's signal aborts", async () => {
      const adapter = await restAdapter(secretConfig(api()));
      const controller = new AbortController();
      const arrived = server.nextRequest("/api/slow/");
      const gone = server.clientGone("/api/slow/");
      const pending = failure(adapter, "/slow/", controller.signal);
      await arrived;
      controller.abort(new Error("the visitor left"));
      expect(await pending).to.match(/was cancelled$/);
      await gone;
    });

    it("stops reading an answer past 5 MiB and closes the connection", async () => {
      const adapter = await restAdapter(secretConfig(api()));
      const gone = server.clientGone("/api/huge/");
      expect(await failure(adapter, "/huge/")).to.equal("backend answer is larger than 5 MiB");
      await gone;
      expect(server.huge.finished).to.equal(false);
    });

    it("refuses a private backend under the default guard", async () => {
      const adapter = await restAdapter(secretConfig(api()), { allowPrivateNetworks: false });
      const before = server.requests.length;
      const message = await failure(adapter, "/products/");
      expect(message).to.include("private networks are not allowed");
      expect(message).to.match(/^outbound request to 127\.0\.0\.1 refused/);
      expect(server.requests.length).to.equal(before);
    });

    describe("test() resolves for any HTTP answer: any status proves the route works", () => {
      /** test() of an adapter on `baseUrl`, which must have one: a missing test() is a failure. */
      async function testOf(baseUrl: string) {
        const adapter = await restAdapter({ baseUrl });
        expect(adapter.test, "adapter.test").to.be.a("function");
        await adapter.test!({ signal });
      }

      // 2xx, 3xx without a Location (nothing to follow), 4xx and 5xx.
      const statuses = [
        200, 201, 204, 300, 301, 304, 400, 401, 403, 404, 410, 429, 500, 502, 503, 504,
      ];
      for (const status of statuses) {
        it(`resolves for ${status} ${http.STATUS_CODES[status]}`, async () => {
          const arrived = server.nextRequest(`/api/status/${status}/`);
          await testOf(`${api()}/status/${status}/`);
          expect((await arrived).method).to.equal("GET");
        });
      }

      it("resolves for the 404 of a path the backend does not route", async () => {
        await testOf(`${api()}/nothing-here/`);
      });
    });
  });
});
