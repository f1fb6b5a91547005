/**
 * Where the REST adapter's credentials go when its backend redirects: to `baseUrl`'s exact origin
 * only. The backend (test/helpers/redirecting-backend.ts) is two servers on two ports of
 * 127.0.0.1; the first redirects to the second, or to itself.
 */
import { expect } from "chai";
import {
  startRedirectingBackend,
  type RedirectingBackend,
} from "../../test/helpers/redirecting-backend.ts";
import type { RestConfig } from "./index.ts";
import {
  BEARER_SECRET,
  HEADER_SECRET,
  products,
  query,
  restAdapters,
  signal,
} from "./adapter-rest-fixtures.ts";

describe("REST adapter redirects", () => {
  let backend: RedirectingBackend;
  const { restAdapter, closeHosts } = restAdapters();

  before(async () => {
    backend = await startRedirectingBackend((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify([{ id: 1, name: "Cleaning" }]));
    });
  });
  beforeEach(() => {
    backend.first.requests.length = 0;
    backend.second.requests.length = 0;
  });
  after(async () => {
    await closeHosts();
    await backend.close();
  });

  /** Configs by what they send, with the names of the headers that carry it. */
  const configs: Record<string, { names: string[]; config: () => RestConfig }> = {
    "its X-Api-Key header": {
      names: ["x-api-key"],
      config: () => ({
        baseUrl: `${backend.first.origin}/api`,
        auth: { type: "header", header: "X-Api-Key", value: HEADER_SECRET },
      }),
    },
    "its bearer token and configured headers": {
      names: ["authorization", "x-tenant"],
      config: () => ({
        baseUrl: `${backend.first.origin}/api`,
        auth: { type: "bearer", value: BEARER_SECRET },
        headers: { "X-Tenant": HEADER_SECRET },
      }),
    },
  };
  const credentialsIn = (headers: Record<string, unknown>) =>
    ["authorization", "x-api-key", "x-tenant"].filter((name) => headers[name] !== undefined);

  for (const [credential, { names, config }] of Object.entries(configs)) {
    for (const status of [302, 307, 308]) {
      it(`keeps ${credential} from another port of baseUrl's host on a ${status}`, async () => {
        backend.redirect = { status, to: "second" };
        const adapter = await restAdapter(config());
        const result = await adapter.search(products, query(), { signal });
        expect(result).to.deep.include({ success: true });
        expect(credentialsIn(backend.first.requests[0]!.headers)).to.deep.equal(names);
        expect(backend.second.requests).to.have.length(1);
        expect(backend.second.requests[0]!.url).to.match(/^\/landed\/api\/products\//);
        expect(credentialsIn(backend.second.requests[0]!.headers)).to.deep.equal([]);
      });
    }

    it(`sends ${credential} on a redirect within baseUrl's origin`, async () => {
      backend.redirect = { status: 302, to: "first" };
      const adapter = await restAdapter(config());
      const result = await adapter.search(products, query(), { signal });
      expect(result).to.deep.include({ success: true });
      const landed = backend.first.requests.filter((r) => r.url.startsWith("/landed/"));
      expect(landed).to.have.length(1);
      expect(credentialsIn(landed[0]!.headers)).to.deep.equal(names);
    });
  }
});
