/**
 * Where the Airtable adapter's access token goes when its API redirects: to `apiUrl`'s exact
 * origin only. The API (test/helpers/redirecting-backend.ts) is two servers on two ports of
 * 127.0.0.1; the first redirects to the second, or to itself; both answer Airtable's 404.
 */
import { expect } from "chai";
import { BASE_ID } from "../../test/helpers/airtable-products.ts";
import {
  startRedirectingBackend,
  type RedirectingBackend,
} from "../../test/helpers/redirecting-backend.ts";
import { TOKEN, airtableAdapters, products, query, signal } from "./adapter-airtable-fixtures.ts";

describe("Airtable adapter redirects", () => {
  let backend: RedirectingBackend;
  const { airtableAdapter, closeHosts } = airtableAdapters();
  const search = async () => {
    const adapter = await airtableAdapter({ baseId: BASE_ID, apiUrl: backend.first.origin });
    return adapter.search(products, query(), { signal });
  };

  before(async () => {
    backend = await startRedirectingBackend((_req, res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "NOT_FOUND" }));
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

  for (const status of [302, 307, 308]) {
    it(`keeps the token from another port of apiUrl's host on a ${status}`, async () => {
      backend.redirect = { status, to: "second" };
      expect(await search()).to.deep.include({ success: false });
      expect(backend.first.requests[0]!.headers.authorization).to.equal(`Bearer ${TOKEN}`);
      expect(backend.second.requests).to.have.length(1);
      expect(backend.second.requests[0]!.url).to.match(/^\/landed\/v0\//);
      expect(backend.second.requests[0]!.headers.authorization).to.equal(undefined);
    });
  }

  it("sends the token on a redirect within apiUrl's origin", async () => {
    backend.redirect = { status: 302, to: "first" };
    expect(await search()).to.deep.include({ success: false });
    const landed = backend.first.requests.filter((r) => r.url.startsWith("/landed/"));
    expect(landed).to.have.length(1);
    expect(landed[0]!.headers.authorization).to.equal(`Bearer ${TOKEN}`);
  });
});
