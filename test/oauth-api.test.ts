import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { OAUTH_START_LIMIT } from "../core/routes/oauth-routes.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { startOAuthProvider, type TestOAuthProvider } from "./helpers/oauth-provider.ts";
import { airtableSite, startOAuthService, oauthStatus, disconnect } from "./helpers/oauth-site.ts";
import { signUp } from "./helpers/session-cookie.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the OAuth endpoints' bad inputs", function () {
  let database: TestDatabase;
  let provider: TestOAuthProvider;
  let service: TestService;
  let workspaceId: string;
  let key: string;
  let siteId: string;

  const start = (site: string, bearer = key) =>
    request(service.server)
      .post(`/v1/sites/${site}/oauth/start`)
      .set("Authorization", `Bearer ${bearer}`);

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    provider = await startOAuthProvider();
    service = await startOAuthService(database.url, provider);
    workspaceId = await service.workspace();
    key = await service.key(workspaceId);
    siteId = await airtableSite(service, workspaceId);
  });
  after(async () => {
    await service?.stop();
    await provider?.stop();
    await database?.drop();
  });

  it("refuses a return_to outside the dashboard, unknown fields and a body that is no object", async () => {
    for (const [body, field] of [
      [{ return_to: "https://evil.example/dashboard" }, "return_to"],
      [{ return_to: "//evil.example/dashboard" }, "return_to"],
      [{ return_to: "/dashboardx" }, "return_to"],
      [{ colour: "blue" }, "colour"],
    ] as const) {
      const res = await start(siteId).send(body).expect(400);
      expect(res.body.error.code).to.equal("invalid_request");
      expect(JSON.stringify(res.body.error)).to.include(field);
    }
    const list = await start(siteId).set("Content-Type", "application/json").send("[]").expect(400);
    expect(list.body.error.code).to.equal("invalid_request");
    const query = await start(siteId).query({ colour: "blue" }).send({}).expect(400);
    expect(query.body.error.code).to.equal("invalid_request");
  });

  it("takes a return_to under the dashboard and an empty body", async () => {
    await start(siteId).expect(200);
    const res = await start(siteId)
      .send({ return_to: `/dashboard/sites/${siteId}?workspace_id=${workspaceId}&tab=data` })
      .expect(200);
    expect(res.body.data.authorization_url).to.be.a("string");
  });

  it("answers 422 for a site without an adapter, or whose adapter does not use OAuth", async () => {
    const principal = operatorPrincipal(workspaceId, "test");
    const bare = `bare-${Date.now()}`;
    await service.sites.create(principal, {
      site_id: bare,
      business_name: "Bare",
      business_description: "",
      domain: `${bare}.example`,
    });
    const rest = `rest-${Date.now()}`;
    await service.sites.create(principal, {
      site_id: rest,
      business_name: "Rest",
      business_description: "",
      domain: `${rest}.example`,
      adapter: {
        type: "rest",
        config: { baseUrl: "https://api.example.com" },
        collections: { items: { source: "/items", searchable_fields: ["name"] } },
      },
    });
    for (const site of [bare, rest]) {
      const res = await start(site).send({}).expect(422);
      expect(res.body.error.code).to.equal("validation_failed");
    }
    const status = await oauthStatus(service, key, rest).expect(422);
    expect(status.body.error.code).to.equal("validation_failed");
  });

  it("keeps another workspace's key out, and a key without sites:write", async () => {
    const stranger = await service.key(await service.workspace());
    for (const call of [
      start(siteId, stranger).send({}),
      oauthStatus(service, stranger, siteId),
      disconnect(service, stranger, siteId),
    ]) {
      const res = await call.expect(404);
      expect(res.body.error.code).to.equal("not_found");
    }
    const reader = await service.key(workspaceId, { scopes: ["sites:read"] });
    expect((await start(siteId, reader).send({}).expect(403)).body.error.code).to.equal(
      "forbidden",
    );
    const del = await disconnect(service, reader, siteId).expect(403);
    expect(del.body.error.code).to.equal("forbidden");
    const none = await request(service.server).post(`/v1/sites/${siteId}/oauth/start`).send({});
    expect(none.status).to.equal(401);
    expect(none.body.error.code).to.equal("unauthorized");
  });

  it("redirects a GET of start to the provider", async () => {
    const res = await request(service.server)
      .get(`/v1/sites/${siteId}/oauth/start`)
      .set("Authorization", `Bearer ${key}`)
      .expect(302);
    expect(res.headers.location).to.match(new RegExp(`^${provider.url}/authorize\\?`));
  });

  it("refuses a dashboard start sent from another site", async () => {
    const member = await signUp(service, "Nordic Home");
    const site = await airtableSite(service, member.workspaceId);
    const res = await request(service.server)
      .post(`/v1/sites/${site}/oauth/start?workspace_id=${member.workspaceId}`)
      .set("Cookie", member.cookie)
      .set("Sec-Fetch-Site", "cross-site")
      .send({})
      .expect(403);
    expect(res.body.error.code).to.equal("forbidden");
    const same = await request(service.server)
      .post(`/v1/sites/${site}/oauth/start?workspace_id=${member.workspaceId}`)
      .set("Cookie", member.cookie)
      .set("Sec-Fetch-Site", "same-origin")
      .send({})
      .expect(200);
    expect(same.body.data.authorization_url).to.be.a("string");
  });

  it(`answers the ${OAUTH_START_LIMIT.points + 1}st start of a site in 10 minutes with 429`, async () => {
    const site = await airtableSite(service, workspaceId);
    for (let i = 0; i < OAUTH_START_LIMIT.points; i++) await start(site).send({}).expect(200);
    const refused = await start(site).send({}).expect(429);
    expect(refused.body.error.code).to.equal("rate_limited");
    await start(siteId).send({}).expect(200);
  });

  it("answers 503 when the operator configured no client for the adapter type", async () => {
    const bare = await startTestService(database.url, {
      SITEVOICE_JOBS: "off",
      SITEVOICE_SIGNUP: "open",
    });
    try {
      const barekey = await bare.key(workspaceId);
      const res = await request(bare.server)
        .post(`/v1/sites/${siteId}/oauth/start`)
        .set("Authorization", `Bearer ${barekey}`)
        .send({})
        .expect(503);
      expect(res.body.error.code).to.equal("service_unavailable");
      expect(res.body.error.message).to.include("SITEVOICE_OAUTH_CLIENTS");
      // The dashboard's Connect link goes back to the site's page, which says why.
      const member = await signUp(bare, "Nordic Home");
      const site = await airtableSite(bare, member.workspaceId);
      const link = await request(bare.server)
        .get(`/v1/sites/${site}/oauth/start?workspace_id=${member.workspaceId}`)
        .set({ Cookie: member.cookie, "Sec-Fetch-Site": "same-origin" })
        .expect(303);
      expect(link.headers.location).to.equal(
        `/dashboard/sites/${site}?workspace_id=${member.workspaceId}&oauth=not_configured#connection`,
      );
      const page = await request(bare.server)
        .get(link.headers.location!.replace(/#.*/, ""))
        .set("Cookie", member.cookie)
        .expect(200);
      expect(page.text).to.include("Connecting is not set up on this service yet");
    } finally {
      await bare.stop();
    }
  });
});
