/**
 * How the Airtable adapter fails: every failure of Airtable or of the way to it as success:false
 * with a clear message in Airtable's words and never the token (429, 5xx, 403, a missing table or
 * field, an unreachable or silent host, a cancelled search), and test() refusing a connection
 * that does not work.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import type { DataAdapter } from "../../core/host/plugin.ts";
import { BASE_ID, productsTable } from "../../test/helpers/airtable-products.ts";
import { startAirtableStandin, type AirtableStandin } from "../../test/helpers/airtable-standin.ts";
import { TOKEN, airtableAdapters, products, query, signal } from "./adapter-airtable-fixtures.ts";

describe("Airtable adapter failures", () => {
  let standin: AirtableStandin;
  let scopes: string[] | undefined;
  const { airtableAdapter, closeHosts } = airtableAdapters();
  const adapter = (config: { apiUrl?: string; timeoutMs?: number } = {}) =>
    airtableAdapter({ baseId: BASE_ID, apiUrl: standin.origin, ...config });

  before(async () => {
    standin = await startAirtableStandin({
      baseId: BASE_ID,
      tables: [productsTable()],
      authorize: (token) => token === TOKEN,
      get scopes() {
        return scopes;
      },
    });
  });
  beforeEach(() => {
    standin.fail(undefined);
    scopes = undefined;
  });
  after(async () => {
    await closeHosts();
    await standin.close();
  });

  /** The failure message of a search, checked free of the token. */
  async function failure(made: DataAdapter, source = "Products", abort = signal) {
    const result = await made.search({ ...products, source }, query(), { signal: abort });
    if (result.success) return expect.fail(`expected ${source} to fail`);
    expect(result.error).not.to.include(TOKEN);
    return result.error;
  }

  it("says Airtable's rate limit was reached on a 429", async () => {
    standin.fail({ status: 429 });
    expect(await failure(await adapter())).to.equal(
      "Airtable's rate limit was reached (5 requests per second per base): " +
        "it refuses the base's requests for the next 30 seconds",
    );
  });

  it("quotes Airtable's type and message for 5xx and 403, without the token", async () => {
    standin.fail({ status: 503 });
    expect(await failure(await adapter())).to.equal(
      "Airtable answered 503 SERVICE_UNAVAILABLE: Try again. If the problem persists, contact support.",
    );
    standin.fail({ status: 500, message: `upstream saw Bearer ${TOKEN}` });
    expect(await failure(await adapter())).to.equal(
      "Airtable answered 500 SERVER_ERROR: upstream saw Bearer [redacted]",
    );
    standin.fail({ status: 403 });
    expect(await failure(await adapter())).to.equal(
      "Airtable answered 403 INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND: Invalid permissions, or the requested model was not found.",
    );
  });

  it("names a missing table or field without asking for records", async () => {
    const made = await adapter();
    const before = standin.requestsTo("records").length;
    expect(await failure(made, "Orders")).to.equal(
      'the base has no table "Orders" (its tables: Products)',
    );
    const result = await made.search(products, query({ fields: ["name", "stock"] }), { signal });
    expect(result).to.deep.equal({
      success: false,
      error: 'Airtable table "Products" has no field "stock"',
    });
    expect(standin.requestsTo("records")).to.have.length(before);
  });

  it("says it could not reach Airtable, did not hear in time, or was cancelled", async () => {
    const silent = http.createServer(() => undefined);
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const { port } = silent.address() as AddressInfo;
    try {
      const slow = await adapter({ apiUrl: `http://127.0.0.1:${port}`, timeoutMs: 150 });
      expect(await failure(slow)).to.equal(
        `Airtable at 127.0.0.1:${port} did not answer within 150 ms`,
      );
      const controller = new AbortController();
      const pending = failure(
        await adapter({ apiUrl: `http://127.0.0.1:${port}` }),
        "Products",
        controller.signal,
      );
      setTimeout(() => controller.abort(new Error("the visitor left")), 50);
      expect(await pending).to.equal("the request to Airtable was cancelled");
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
    const closed = `http://127.0.0.1:${port}`;
    expect(await failure(await adapter({ apiUrl: closed }))).to.equal(
      `could not reach Airtable at 127.0.0.1:${port}`,
    );
  });

  describe("test()", () => {
    const testOf = async (made: DataAdapter) => {
      let caught: unknown;
      await made.test!({ signal }).catch((error: unknown) => (caught = error));
      return caught === undefined ? undefined : String((caught as Error).cause ?? caught);
    };

    it("resolves when the token is accepted with its scopes and the base is readable", async () => {
      const before = standin.requests.length;
      expect(await testOf(await adapter())).to.equal(undefined);
      expect(standin.requests.slice(before).map((r) => r.path)).to.deep.equal([
        "/v0/meta/whoami",
        `/v0/meta/bases/${BASE_ID}/tables`,
      ]);
    });

    it("rejects a refused token, a missing scope and an unreachable base, saying which", async () => {
      const refused = await airtableAdapter(
        { baseId: BASE_ID, apiUrl: standin.origin },
        { accessToken: () => "oaat_revoked_0000" },
      );
      expect(await testOf(refused)).to.match(
        /the Airtable connection does not work: Airtable answered 401 AUTHENTICATION_REQUIRED/,
      );
      scopes = ["data.records:read"];
      expect(await testOf(await adapter())).to.match(
        /the Airtable connection lacks the scope schema\.bases:read: reconnect Airtable for this site$/,
      );
      scopes = undefined;
      const elsewhere = await airtableAdapter({
        baseId: "appSomeOtherBase1",
        apiUrl: standin.origin,
      });
      expect(await testOf(elsewhere)).to.match(
        /the Airtable base cannot be read: Airtable answered 404 NOT_FOUND$/,
      );
    });
  });
});
