import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { open } from "../core/security/secret-box.ts";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { adaptersTestCommand } from "../core/search/adapters-command.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import type { TestService } from "./helpers/test-service.ts";
import { startOAuthProvider, type TestOAuthProvider } from "./helpers/oauth-provider.ts";
import { startAirtableStandin, type AirtableStandin } from "./helpers/airtable-standin.ts";
import { productsTable } from "./helpers/airtable-products.ts";
import {
  airtableSite,
  BASE_ID,
  connectWithKey,
  startOAuthService,
  oauthStatus,
} from "./helpers/oauth-site.ts";

/** Tokens that expire within the refresh window (15 minutes), and ones that do not. */
const STALE = 10 * 60;
const FRESH = 3600;

for (const target of databaseTargets) {
  describe(`OAuth tokens in use and refreshed, on ${target.label}`, function () {
    let database: TestDatabase;
    let provider: TestOAuthProvider;
    let standin: AirtableStandin;
    let first: TestService;
    let second: TestService;
    let workspaceId: string;
    let key: string;

    const search = (service: TestService, siteId: string, query = "sofa") =>
      request(service.server)
        .post(`/v1/${siteId}/query`)
        .set("Authorization", `Bearer ${key}`)
        .send({ collection: "products", query });
    const connectedSite = async (expiresIn: number) => {
      const siteId = await airtableSite(first, workspaceId, standin.origin);
      provider.expiresIn = expiresIn;
      await connectWithKey(first, provider, key, siteId);
      provider.expiresIn = FRESH;
      return siteId;
    };
    const connection = async (siteId: string) => (await first.store.oauth.connection(siteId))!;
    const adapterErrors = async (siteId: string) =>
      (await first.store.events.serviceOfTypes(["adapter.error"])).filter(
        (e) => e.site_id === siteId,
      );

    before(async function () {
      database = (await createTestDatabase(target))!;
      if (database === undefined) missing(this, target.label);
      provider = await startOAuthProvider();
      standin = await startAirtableStandin({
        baseId: BASE_ID,
        tables: [productsTable()],
        authorize: (token) => provider.accepts(token),
      });
      // Two instances of one service: the same database and master key.
      const masterKey = crypto.randomBytes(32).toString("base64");
      first = await startOAuthService(database.url, provider, { SITEVOICE_MASTER_KEY: masterKey });
      second = await startOAuthService(database.url, provider, { SITEVOICE_MASTER_KEY: masterKey });
      workspaceId = await first.workspace();
      key = await first.key(workspaceId);
    });
    beforeEach(() => {
      provider.failRefresh = undefined;
      provider.expiresIn = FRESH;
    });
    after(async () => {
      await first?.stop();
      await second?.stop();
      await standin?.close();
      await provider?.stop();
      await database?.drop();
    });

    it("searches with the access token the connection got", async () => {
      const siteId = await connectedSite(FRESH);
      const res = await search(first, siteId).expect(200);
      expect(res.body.data.items.map((i: { name: string }) => i.name)).to.have.members([
        "Oslo Sofa",
        "Bergen Sofa",
      ]);
      const row = await connection(siteId);
      const token = open(first.ring, row.access_token);
      expect(standin.requestsTo("records").at(-1)!.token).to.equal(token);
      expect(provider.accepts(token)).to.equal(true);
    });

    it("tests the connection and describes the table with the token (sitevoice adapters test)", async () => {
      const siteId = await connectedSite(FRESH);
      const lines: string[] = [];
      const code = await adaptersTestCommand(siteId, {
        sites: second.sites,
        plugins: second.plugins,
        principal: operatorPrincipal(workspaceId, "test"),
        out: (line) => lines.push(line),
      });
      expect(code, lines.join("\n")).to.equal(0);
      expect(lines).to.include("connection: ok");
      expect(lines).to.include("collection products (Products): 12 records");
      const unconnected = await airtableSite(first, workspaceId, standin.origin);
      const failed: string[] = [];
      await adaptersTestCommand(unconnected, {
        sites: second.sites,
        plugins: second.plugins,
        principal: operatorPrincipal(workspaceId, "test"),
        out: (line) => failed.push(line),
      }).then(
        (exit) => expect(exit).to.equal(1),
        (error: Error) => failed.push(error.message),
      );
      expect(failed.join("\n")).to.include("not connected");
    });

    it("refreshes a token near its expiry before searching, saving the rotated refresh token", async () => {
      const siteId = await connectedSite(STALE);
      const before = await connection(siteId);
      const oldRefresh = open(first.ring, before.refresh_token!);
      const refreshes = provider.counts.refresh;
      await search(first, siteId).expect(200);
      expect(provider.counts.refresh).to.equal(refreshes + 1);
      const after = await connection(siteId);
      expect(after.generation).to.equal(before.generation + 1);
      const newRefresh = open(first.ring, after.refresh_token!);
      expect(newRefresh).not.to.equal(oldRefresh);
      expect(provider.issuedTokens().at(-1)).to.equal(newRefresh);
      expect(standin.requestsTo("records").at(-1)!.token).to.equal(
        open(first.ring, after.access_token),
      );
      expect(after.expires_at! - Date.now()).to.be.greaterThan(STALE * 1000);
      // The new token is fresh: the next search asks the provider nothing.
      await search(second, siteId).expect(200);
      expect(provider.counts.refresh).to.equal(refreshes + 1);
    });

    it("makes one refresh call for ten concurrent searches on two instances", async () => {
      const siteId = await connectedSite(STALE);
      const refreshes = provider.counts.refresh;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => search(i % 2 === 0 ? first : second, siteId)),
      );
      expect(answers.map((res) => res.status)).to.deep.equal(Array(10).fill(200));
      expect(provider.counts.refresh).to.equal(refreshes + 1);
      const row = await connection(siteId);
      const token = open(first.ring, row.access_token);
      const used = standin
        .requestsTo("records")
        .slice(-10)
        .map((r) => r.token);
      expect(used).to.deep.equal(Array(10).fill(token));
      expect(row.refresh_lock_owner).to.equal(null);
    });

    it("refreshes at once a token the provider's API refuses, and retries the search", async () => {
      const siteId = await connectedSite(FRESH);
      const refreshes = provider.counts.refresh;
      provider.forgetAccessTokens();
      await search(first, siteId).expect(200);
      expect(provider.counts.refresh).to.equal(refreshes + 1);
    });

    it("refreshes a refused token even while a failed refresh is waiting to be retried", async () => {
      const siteId = await connectedSite(STALE);
      provider.failRefresh = "unavailable";
      await search(first, siteId).expect(200);
      expect((await connection(siteId)).retry_after).to.be.a("number");
      provider.failRefresh = undefined;
      provider.forgetAccessTokens();
      const refreshes = provider.counts.refresh;
      await search(second, siteId).expect(200);
      expect(provider.counts.refresh).to.equal(refreshes + 1);
      expect((await connection(siteId)).failures).to.equal(0);
    });

    it("marks the connection reauth_required on invalid_grant, with one adapter.error event", async () => {
      const siteId = await connectedSite(STALE);
      provider.failRefresh = "invalid_grant";
      const res = await search(first, siteId).expect(422);
      expect(res.body.error.code).to.equal("adapter_error");
      expect(res.body.error.details.oauth).to.equal("reauth_required");
      expect(res.body.error.message).to.include("reconnected");
      const refreshes = provider.counts.refresh;
      const again = await search(second, siteId).expect(422);
      expect(again.body.error.details.oauth).to.equal("reauth_required");
      expect(provider.counts.refresh, "no refresh of a connection known to be refused").to.equal(
        refreshes,
      );
      expect((await connection(siteId)).status).to.equal("reauth_required");
      const events = await adapterErrors(siteId);
      expect(events).to.have.length(1);
      expect(JSON.parse(events[0]!.data)).to.include({
        site_id: siteId,
        adapter_type: "airtable",
        error: "reauth_required",
      });
      const status = await oauthStatus(first, key, siteId).expect(200);
      expect(status.body.data.status).to.equal("reauth_required");
      expect(status.body.data.last_error).to.include("invalid_grant");
      // Reconnecting mends it.
      await connectWithKey(first, provider, key, siteId);
      await search(first, siteId).expect(200);
    });

    it("serves an unexpired token while the provider is down, and asks for reconnection after three failures", async () => {
      const siteId = await connectedSite(STALE);
      provider.failRefresh = "unavailable";
      const refreshes = provider.counts.refresh;
      const later = () =>
        first.store.db
          .knex("oauth_connections")
          .where({ site_id: siteId })
          .update({ retry_after: null });
      await search(first, siteId).expect(200);
      // Within REFRESH_RETRY_MS of a failure the old token serves without asking the provider.
      await search(second, siteId).expect(200);
      await search(first, siteId).expect(200);
      expect(provider.counts.refresh).to.equal(refreshes + 1);
      await later();
      await search(second, siteId).expect(200);
      expect((await connection(siteId)).failures).to.equal(2);
      await later();
      const third = await search(first, siteId).expect(422);
      expect(third.body.error.details.oauth).to.equal("reauth_required");
      expect(third.body.error.message).to.include("3 refreshes failed in a row");
      expect(provider.counts.refresh).to.equal(refreshes + 3);
      expect(await adapterErrors(siteId)).to.have.length(1);
    });

    it("answers a site not connected yet with 422 naming it, and a moved destination as reauth_required", async () => {
      const siteId = await airtableSite(first, workspaceId, standin.origin);
      const res = await search(first, siteId).expect(422);
      expect(res.body.error.code).to.equal("adapter_error");
      expect(res.body.error.details.oauth).to.equal("not_connected");

      await connectWithKey(first, provider, key, siteId);
      const calls = standin.requests.length;
      const site = await request(first.server)
        .get(`/v1/sites/${siteId}`)
        .set("Authorization", `Bearer ${key}`)
        .expect(200);
      const adapter = site.body.data.adapter;
      adapter.config.apiUrl = standin.origin.replace("127.0.0.1", "localhost");
      await request(first.server)
        .patch(`/v1/sites/${siteId}`)
        .set("Authorization", `Bearer ${key}`)
        .send({ adapter })
        .expect(200);
      const moved = await search(first, siteId).expect(422);
      expect(moved.body.error.details.oauth).to.equal("reauth_required");
      expect(moved.body.error.message).to.include("points elsewhere");
      expect(standin.requests.length, "no token sent to the new destination").to.equal(calls);
    });
  });
}
