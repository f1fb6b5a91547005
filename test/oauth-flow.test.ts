import { expect } from "chai";
import request from "supertest";
import crypto from "node:crypto";
import { isSealed, keyRing, open } from "../core/security/secret-box.ts";
import { rotateSecrets } from "../core/sites/secret-rotation.ts";
import { hashToken } from "../core/security/token-hash.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import type { TestService } from "./helpers/test-service.ts";
import { startOAuthProvider, type TestOAuthProvider } from "./helpers/oauth-provider.ts";
import {
  airtableSite,
  callback,
  connectWithKey,
  outcomeOf,
  startOAuthService,
  startWithKey,
  oauthStatus,
  disconnect,
} from "./helpers/oauth-site.ts";
import { signUp } from "./helpers/session-cookie.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** Every row of every table, as text: where a plaintext token must not be. */
async function everything(service: TestService): Promise<string> {
  const knex = service.store.db.knex;
  const tables = (await knex.raw("select name from sqlite_master where type = 'table'")) as {
    name: string;
  }[];
  const rows = await Promise.all(tables.map(({ name }) => knex(name).select()));
  return JSON.stringify(rows);
}

describe("connecting a site's OAuth adapter", function () {
  let database: TestDatabase;
  let provider: TestOAuthProvider;
  let service: TestService;
  let workspaceId: string;
  let key: string;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    provider = await startOAuthProvider();
    service = await startOAuthService(database.url, provider);
    workspaceId = await service.workspace();
    key = await service.key(workspaceId);
  });
  after(async () => {
    await service?.stop();
    await provider?.stop();
    await database?.drop();
  });

  it("starts with PKCE and a state naming the site, and connects with the tokens sealed", async () => {
    const siteId = await airtableSite(service, workspaceId);
    const before = Date.now();
    const { url, state, body } = await startWithKey(service, key, siteId);
    expect(url.origin + url.pathname).to.equal(`${provider.url}/authorize`);
    const params = Object.fromEntries(url.searchParams);
    expect(params).to.include({
      client_id: "sitevoice-test-client",
      redirect_uri: `${service.settings.publicBaseUrl}/v1/oauth/callback`,
      response_type: "code",
      scope: "data.records:read schema.bases:read",
      code_challenge_method: "S256",
    });
    expect(params.code_challenge).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(state.startsWith(`${siteId}.`)).to.equal(true);
    expect(state.length).to.be.greaterThan(siteId.length + 40);
    const expiresAt = Date.parse(body.expires_at as string);
    expect(expiresAt - before).to.be.within(10 * 60_000 - 1_000, 10 * 60_000 + 60_000);

    const answer = await provider.consent(url.href);
    expect(answer.get("state")).to.equal(state);
    const res = await callback(service, answer).expect(303);
    expect(outcomeOf(res.headers.location, siteId)).to.equal("connected");
    expect(res.headers.location).to.include(`workspace_id=${workspaceId}`);

    const row = (await service.store.oauth.connection(siteId))!;
    expect(row).to.include({
      status: "connected",
      adapter_type: "airtable",
      workspace_id: workspaceId,
    });
    expect(isSealed(row.access_token)).to.equal(true);
    expect(isSealed(row.refresh_token)).to.equal(true);
    // The provider's tokens are nowhere in the database in clear, nor the PKCE verifier's state.
    const stored = await everything(service);
    const status = await oauthStatus(service, key, siteId).expect(200);
    expect(status.body.data).to.include({
      site_id: siteId,
      status: "connected",
      adapter_type: "airtable",
    });
    expect(status.body.data.connected_at).to.be.a("string");
    expect(provider.issuedTokens()).to.have.length(2);
    for (const token of provider.issuedTokens()) {
      expect(stored).not.to.include(token);
      expect(JSON.stringify(status.body)).not.to.include(token);
    }
    expect(stored).not.to.include(state);
    expect(stored).to.include(hashToken(state));
  });

  it("refuses a reused state, and keeps the connection as it was", async () => {
    const siteId = await airtableSite(service, workspaceId);
    const { url } = await startWithKey(service, key, siteId);
    const answer = await provider.consent(url.href);
    await callback(service, answer).expect(303);
    const connected = (await service.store.oauth.connection(siteId))!;
    const exchanges = provider.counts.exchange;
    const again = await callback(service, answer).expect(303);
    expect(outcomeOf(again.headers.location, siteId)).to.equal("state_used");
    expect(provider.counts.exchange).to.equal(exchanges);
    expect((await service.store.oauth.connection(siteId))!.generation).to.equal(
      connected.generation,
    );
  });

  it("refuses an expired state without asking the provider", async () => {
    const siteId = await airtableSite(service, workspaceId);
    const { url, state } = await startWithKey(service, key, siteId);
    const answer = await provider.consent(url.href);
    await service.store.db
      .knex("oauth_states")
      .where({ state_hash: hashToken(state) })
      .update({ expires_at: Date.now() - 1 });
    const exchanges = provider.counts.exchange;
    const res = await callback(service, answer).expect(303);
    expect(outcomeOf(res.headers.location, siteId)).to.equal("state_expired");
    expect(provider.counts.exchange).to.equal(exchanges);
    expect(await service.store.oauth.connection(siteId)).to.equal(undefined);
  });

  it("forgets a state a day after it expired, at the next start", async () => {
    const siteId = await airtableSite(service, workspaceId);
    const { state } = await startWithKey(service, key, siteId);
    const stored = () => service.store.oauth.state(hashToken(state));
    await service.store.db
      .knex("oauth_states")
      .where({ state_hash: hashToken(state) })
      .update({ expires_at: Date.now() - 24 * 3600_000 + 60_000 });
    await startWithKey(service, key, siteId);
    expect(await stored(), "expired less than a day ago: kept").not.to.equal(undefined);
    await service.store.db
      .knex("oauth_states")
      .where({ state_hash: hashToken(state) })
      .update({ expires_at: Date.now() - 24 * 3600_000 - 1 });
    await startWithKey(service, key, siteId);
    expect(await stored()).to.equal(undefined);
  });

  it("answers a tampered or missing state with an error page, never JSON", async () => {
    const siteId = await airtableSite(service, workspaceId);
    const other = await airtableSite(service, workspaceId);
    const { url, state } = await startWithKey(service, key, siteId);
    const answer = await provider.consent(url.href);
    const last = state.at(-1) === "A" ? "B" : "A";
    for (const forged of [state.slice(0, -1) + last, `${other}${state.slice(siteId.length)}`]) {
      const query = new URLSearchParams(answer);
      query.set("state", forged);
      const res = await callback(service, query).expect(401);
      expect(res.headers["content-type"]).to.match(/^text\/html/);
      expect(res.text).to.include("That connection link is unknown");
    }
    const none = new URLSearchParams(answer);
    none.delete("state");
    const res = await callback(service, none).expect(400);
    expect(res.headers["content-type"]).to.match(/^text\/html/);
    expect(await service.store.oauth.connection(siteId)).to.equal(undefined);
    expect(await service.store.oauth.connection(other)).to.equal(undefined);
    // The real state still works: the forgeries did not use it.
    expect(
      outcomeOf((await callback(service, answer).expect(303)).headers.location, siteId),
    ).to.equal("connected");
  });

  it("refuses a browser signed in to another workspace, leaving the state unused", async () => {
    const siteId = await airtableSite(service, workspaceId);
    const stranger = await signUp(service, "Elsewhere");
    const { url } = await startWithKey(service, key, siteId);
    const answer = await provider.consent(url.href);
    const res = await callback(service, answer, stranger.cookie).expect(403);
    expect(res.headers["content-type"]).to.match(/^text\/html/);
    expect(res.text).to.include("another workspace");
    expect(await service.store.oauth.connection(siteId)).to.equal(undefined);
    expect(
      outcomeOf((await callback(service, answer).expect(303)).headers.location, siteId),
    ).to.equal("connected");
  });

  it("lets a member's connection finish only in that member's browser", async () => {
    const member = await signUp(service, "Nordic Home");
    const siteId = await airtableSite(service, member.workspaceId);
    const start = await request(service.server)
      .get(`/v1/sites/${siteId}/oauth/start?workspace_id=${member.workspaceId}`)
      .set({ Cookie: member.cookie, "Sec-Fetch-Site": "same-origin" })
      .expect(302);
    const answer = await provider.consent(start.headers.location!);
    const elsewhere = await callback(service, answer).expect(403);
    expect(elsewhere.text).to.include("browser that started it");
    const res = await callback(service, answer, member.cookie).expect(303);
    expect(outcomeOf(res.headers.location, siteId)).to.equal("connected");
  });

  it("checks the PKCE verifier: a code obtained for one state does not finish another", async () => {
    const siteId = await airtableSite(service, workspaceId);
    const first = await startWithKey(service, key, siteId);
    const second = await startWithKey(service, key, siteId);
    const code = (await provider.consent(first.url.href)).get("code")!;
    const asked = provider.counts.token;
    const crossed = new URLSearchParams({ code, state: second.state });
    const res = await callback(service, crossed).expect(303);
    expect(outcomeOf(res.headers.location, siteId)).to.equal("provider_error");
    // The provider was asked, with the second flow's verifier, and refused it.
    expect(provider.counts.token).to.equal(asked + 1);
    expect(await service.store.oauth.connection(siteId)).to.equal(undefined);
  });

  it("says so when the business does not allow the connection at the provider", async () => {
    const siteId = await airtableSite(service, workspaceId);
    const { state } = await startWithKey(service, key, siteId);
    const denied = new URLSearchParams({ error: "access_denied", state });
    const res = await callback(service, denied).expect(303);
    expect(outcomeOf(res.headers.location, siteId)).to.equal("denied");
    expect(await service.store.oauth.connection(siteId)).to.equal(undefined);
  });

  it("disconnects: revokes the refresh token at the provider and deletes the tokens", async () => {
    const siteId = await airtableSite(service, workspaceId);
    await connectWithKey(service, provider, key, siteId);
    const res = await disconnect(service, key, siteId).expect(200);
    expect(res.body.data).to.deep.equal({ site_id: siteId, disconnected: true, revoked: true });
    expect(provider.revoked.size).to.be.greaterThan(0);
    expect(await service.store.oauth.connection(siteId)).to.equal(undefined);
    const status = await oauthStatus(service, key, siteId).expect(200);
    expect(status.body.data.status).to.equal("not_connected");
    const again = await disconnect(service, key, siteId).expect(404);
    expect(again.body.error.code).to.equal("not_found");
  });

  // Last: it re-seals the whole store under a key this service does not hold.
  it("re-seals the connection's tokens under a new master key (secrets rotate)", async () => {
    const siteId = await airtableSite(service, workspaceId);
    await connectWithKey(service, provider, key, siteId);
    const before = (await service.store.oauth.connection(siteId))!;
    const newKey = crypto.randomBytes(32);
    const rotated = await rotateSecrets(
      service.store,
      keyRing(newKey, [...service.ring.keys.values()]),
    );
    expect(rotated.oauthConnections).to.be.at.least(1);
    const after = (await service.store.oauth.connection(siteId))!;
    const alone = keyRing(newKey);
    expect(open(alone, after.access_token)).to.equal(open(service.ring, before.access_token));
    expect(open(alone, after.refresh_token!)).to.equal(open(service.ring, before.refresh_token!));
    expect(after.generation).to.equal(before.generation);
  });
});
