/**
 * `GET /v1/sites/:id/oauth/start` with the dashboard's cookie changes state (it stores a state and
 * counts one of the site's 20 starts), so it obeys the dashboard's CSRF rule although it is a
 * navigation: `Sec-Fetch-Site: same-origin`, or without that header an Origin exactly
 * PUBLIC_BASE_URL's. Anything else goes back to the site's page saying so, and counts no start;
 * a start with a key is not the cookie's and is unaffected.
 */
import { expect } from "chai";
import request from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import type { TestService } from "./helpers/test-service.ts";
import { startOAuthProvider, type TestOAuthProvider } from "./helpers/oauth-provider.ts";
import { airtableSite, startOAuthService } from "./helpers/oauth-site.ts";
import { signUp, type Member } from "./helpers/session-cookie.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("a dashboard member's GET of oauth/start, by where it comes from", () => {
  let database: TestDatabase | undefined;
  let provider: TestOAuthProvider;
  let service: TestService;
  let member: Member;

  /** The member's GET of start for `siteId` with `headers` (none but the cookie by default). */
  const startLink = (siteId: string, headers: Record<string, string> = {}) =>
    request(service.server)
      .get(`/v1/sites/${siteId}/oauth/start?workspace_id=${member.workspaceId}`)
      .set({ Cookie: member.cookie, ...headers });
  /** The states stored for `siteId`: one per start that went to the provider. */
  const statesOf = async (siteId: string) =>
    (await service.store.db.knex("oauth_states").where({ site_id: siteId })).length;
  /** Asserts the site's next start is its first of the 20: no refused one was counted. */
  const expectNoStartCounted = async (siteId: string) => {
    expect(await statesOf(siteId)).to.equal(0);
    const next = await startLink(siteId, { "Sec-Fetch-Site": "same-origin" }).expect(302);
    expect(next.headers["ratelimit-remaining"]).to.equal("19");
  };
  const refusedPage = (siteId: string) =>
    `/dashboard/sites/${siteId}?workspace_id=${member.workspaceId}&oauth=cross_site#connection`;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    provider = await startOAuthProvider();
    service = await startOAuthService(database.url, provider);
    member = await signUp(service, "Nordic Home");
    // A site a test: more than the free plan's one.
    await service.store.db
      .knex("workspaces")
      .where({ id: member.workspaceId })
      .update({ plan: "business" });
  });
  after(async () => {
    await service?.stop();
    await provider?.stop();
    await database?.drop();
  });

  for (const site of ["cross-site", "same-site", "none"]) {
    it(`refuses Sec-Fetch-Site: ${site}, back to the site's page, counting no start`, async () => {
      const siteId = await airtableSite(service, member.workspaceId);
      const refused = await startLink(siteId, { "Sec-Fetch-Site": site }).expect(303);
      expect(refused.headers.location).to.equal(refusedPage(siteId));
      await expectNoStartCounted(siteId);
    });
  }

  it("refuses a browser that sends no Sec-Fetch-Site (a navigation sends no Origin either)", async () => {
    const siteId = await airtableSite(service, member.workspaceId);
    const refused = await startLink(siteId).expect(303);
    expect(refused.headers.location).to.equal(refusedPage(siteId));
    await expectNoStartCounted(siteId);
  });

  it("refuses a browser that sends no Sec-Fetch-Site and another site's Origin", async () => {
    const siteId = await airtableSite(service, member.workspaceId);
    const refused = await startLink(siteId, { Origin: "https://evil.example" }).expect(303);
    expect(refused.headers.location).to.equal(refusedPage(siteId));
    await expectNoStartCounted(siteId);
  });

  it("says on the site's page why a start from elsewhere was refused", async () => {
    const siteId = await airtableSite(service, member.workspaceId);
    const refused = await startLink(siteId, { "Sec-Fetch-Site": "cross-site" }).expect(303);
    const page = await request(service.server)
      .get(refused.headers.location!.replace(/#.*/, ""))
      .set("Cookie", member.cookie)
      .expect(200);
    expect(page.text).to.include("Connecting must start from the Connect button on this page");
  });

  it("sends a same-origin start to the provider, counting it", async () => {
    const siteId = await airtableSite(service, member.workspaceId);
    const started = await startLink(siteId, { "Sec-Fetch-Site": "same-origin" }).expect(302);
    expect(started.headers.location).to.match(new RegExp(`^${provider.url}/authorize\\?`));
    expect(started.headers["ratelimit-remaining"]).to.equal("19");
    expect(await statesOf(siteId)).to.equal(1);
  });

  it("sends a start without Sec-Fetch-Site whose Origin is PUBLIC_BASE_URL's to the provider", async () => {
    const siteId = await airtableSite(service, member.workspaceId);
    const origin = new URL(service.settings.publicBaseUrl).origin;
    const started = await startLink(siteId, { Origin: origin }).expect(302);
    expect(started.headers.location).to.match(new RegExp(`^${provider.url}/authorize\\?`));
  });

  it("sends a key's start to the provider whatever Sec-Fetch-Site says", async () => {
    const siteId = await airtableSite(service, member.workspaceId);
    const key = await service.key(member.workspaceId);
    const started = await request(service.server)
      .get(`/v1/sites/${siteId}/oauth/start`)
      .set({ Authorization: `Bearer ${key}`, "Sec-Fetch-Site": "cross-site" })
      .expect(302);
    expect(started.headers.location).to.match(new RegExp(`^${provider.url}/authorize\\?`));
  });
});
