/**
 * The Airtable adapter and the site's OAuth connection: the host's token on every request, one
 * refresh (the refused token handed back) and one retry on a 401, a second 401 as a failure that
 * quotes no token, and a rejection of `accessToken()` (not connected, reauth required) going out
 * of `search` untouched, as the service's adapter_error.
 */
import { expect } from "chai";
import pino from "pino";
import { PluginCallError, PluginHost, type OAuthAccess } from "sitevoice";
import { OutboundPolicy } from "../../core/security/outbound-policy.ts";
import { BASE_ID, productsTable } from "../../test/helpers/airtable-products.ts";
import { startAirtableStandin, type AirtableStandin } from "../../test/helpers/airtable-standin.ts";
import {
  airtableAdapters,
  products,
  query,
  scriptedAccess,
  signal,
} from "./adapter-airtable-fixtures.ts";

const STALE = "oaat_stale_SECRET_1111";
const FRESH = "oaat_fresh_SECRET_2222";

describe("Airtable adapter and OAuth", () => {
  let standin: AirtableStandin;
  let accepted: (token: string) => boolean;
  const { instanceOf, closeHosts } = airtableAdapters();

  /** An adapter whose `context.oauth` is `access`, as the service's token keeper would be. */
  const adapterWith = (access: OAuthAccess) =>
    instanceOf(
      new PluginHost({
        logger: pino({ level: "silent" }),
        outbound: new OutboundPolicy({ allowPrivateNetworks: true }),
        oauthAccess: () => access,
      }),
      { baseId: BASE_ID, apiUrl: standin.origin },
    );

  before(async () => {
    standin = await startAirtableStandin({
      baseId: BASE_ID,
      tables: [productsTable()],
      authorize: (token) => accepted(token),
    });
  });
  beforeEach(() => {
    standin.requests.length = 0;
    standin.fail(undefined);
  });
  after(async () => {
    await closeHosts();
    await standin.close();
  });

  it("sends the host's token as a bearer token on every request", async () => {
    accepted = (token) => token === FRESH;
    const { access, calls } = scriptedAccess([FRESH]);
    const result = await (await adapterWith(access)).search(products, query(), { signal });
    expect(result).to.deep.include({ success: true, total: 12 });
    expect(standin.requests.map((r) => [r.path, r.token])).to.deep.equal([
      [`/v0/meta/bases/${BASE_ID}/tables`, FRESH],
      [`/v0/${BASE_ID}/Products`, FRESH],
    ]);
    expect(calls).to.deep.equal([{ rejected: undefined }, { rejected: undefined }]);
  });

  it("hands a refused token back once, and retries once with the refreshed one", async () => {
    accepted = (token) => token === FRESH;
    const { access, calls } = scriptedAccess([STALE, FRESH]);
    const result = await (await adapterWith(access)).search(products, query(), { signal });
    expect(result).to.deep.include({ success: true, total: 12 });
    expect(calls).to.deep.equal([
      { rejected: undefined },
      { rejected: STALE },
      { rejected: undefined },
    ]);
    expect(standin.requests.map((r) => [r.path, r.token, r.status])).to.deep.equal([
      [`/v0/meta/bases/${BASE_ID}/tables`, STALE, 401],
      [`/v0/meta/bases/${BASE_ID}/tables`, FRESH, 200],
      [`/v0/${BASE_ID}/Products`, FRESH, 200],
    ]);
  });

  it("fails on a second 401, and quotes neither token even when Airtable does", async () => {
    accepted = () => false;
    const { access, calls } = scriptedAccess([STALE, FRESH]);
    const adapter = await adapterWith(access);
    expect(await adapter.search(products, query(), { signal })).to.deep.equal({
      success: false,
      error:
        "Airtable answered 401 AUTHENTICATION_REQUIRED: Authentication required " +
        "(the site's Airtable connection may need to be reconnected)",
    });
    expect(calls).to.have.length(2);
    expect(standin.requests.map((r) => r.status)).to.deep.equal([401, 401]);

    standin.fail({ status: 401, message: `tokens ${STALE} and ${FRESH} are not valid` });
    const again = await adapterWith(scriptedAccess([STALE, FRESH]).access);
    const result = await again.search(products, query(), { signal });
    if (result.success) return expect.fail("expected a failure");
    expect(result.error).to.include("tokens [redacted] and [redacted] are not valid");
    expect(result.error).not.to.include(STALE);
    expect(result.error).not.to.include(FRESH);
  });

  it("lets a rejection of accessToken() out of search, asking Airtable nothing", async () => {
    const notConnected = new Error("the site has no Airtable connection");
    const adapter = await adapterWith({ accessToken: () => Promise.reject(notConnected) });
    let caught: unknown;
    await adapter.search(products, query(), { signal }).catch((error: unknown) => (caught = error));
    expect(caught).to.be.instanceOf(PluginCallError);
    expect((caught as PluginCallError).cause).to.equal(notConnected);
    caught = undefined;
    await adapter.test?.({ signal }).catch((error: unknown) => (caught = error));
    expect((caught as PluginCallError).cause).to.equal(notConnected);
    expect(standin.requests).to.deep.equal([]);
  });
});
