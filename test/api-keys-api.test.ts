/**
 * API keys over HTTP, for a signed-in dashboard user only: made with scopes and shown once, listed
 * masked, used as any key is, revoked at once; another workspace's sites or workspace refused, an
 * API key (not a session) refused, and a cross-site change refused.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { signUp } from "./helpers/session-cookie.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const SAME = { "Sec-Fetch-Site": "same-origin" };

describe("API keys over HTTP, from the dashboard session", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;
  let cookie: string;
  let workspaceId: string;
  let siteId: string;

  const signup = () => signUp(service);

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      TRUSTED_PROXIES: "loopback",
    });
    ({ cookie, workspaceId } = await signup());
    siteId = `keys-${crypto.randomBytes(3).toString("hex")}`;
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: siteId,
      business_name: "Keys",
      business_description: "",
      domain: `${siteId}.example`,
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  const create = (body: unknown, headers: Record<string, string> = SAME) =>
    request(service.server)
      .post("/v1/api-keys")
      .set("Cookie", cookie)
      .set(headers)
      .send(body as object);

  it("makes a key with its scopes, shows its value once, and the key works at once", async () => {
    const made = await create({ name: "CI", scopes: ["sites:read"], mode: "live" }).expect(201);
    const value = made.body.data.value as string;
    expect(value).to.match(/^vk_live_[A-Za-z0-9_-]{32}$/);
    const sites = await request(service.server)
      .get("/v1/sites")
      .set("Authorization", `Bearer ${value}`)
      .expect(200);
    expect(sites.body.data.map((s: { site_id: string }) => s.site_id)).to.deep.equal([siteId]);
    const write = await request(service.server)
      .post("/v1/sites")
      .set("Authorization", `Bearer ${value}`)
      .send({ business_name: "x", business_description: "x", domain: "x.example" });
    expect(write.status).to.equal(403);
    const listed = await request(service.server)
      .get("/v1/api-keys")
      .set("Cookie", cookie)
      .expect(200);
    const shown = listed.body.data.find((k: { id: string }) => k.id === made.body.data.id);
    expect(shown.display).to.equal(`vk_live_••••${value.slice(-4)}`);
    expect(JSON.stringify(listed.body)).to.not.contain(value);
  });

  it("revokes a key at once", async () => {
    const made = await create({ name: "Old", scopes: ["sites:read"] }).expect(201);
    const value = made.body.data.value as string;
    await request(service.server)
      .delete(`/v1/api-keys/${made.body.data.id}`)
      .set("Cookie", cookie)
      .set(SAME)
      .expect(200);
    const refused = await request(service.server)
      .get("/v1/sites")
      .set("Authorization", `Bearer ${value}`);
    expect(refused.status).to.equal(401);
    const again = await request(service.server)
      .delete(`/v1/api-keys/${made.body.data.id}`)
      .set("Cookie", cookie)
      .set(SAME);
    expect(again.status).to.equal(404);
  });

  it("limits a key to the workspace's own sites: another's is 422", async () => {
    const limited = await create({ name: "Tenant", scopes: ["sites:read"], site_ids: [siteId] });
    expect(limited.status).to.equal(201);
    const other = await signup();
    const foreign = `foreign-${crypto.randomBytes(3).toString("hex")}`;
    await service.sites.create(operatorPrincipal(other.workspaceId, "test"), {
      site_id: foreign,
      business_name: "Foreign",
      business_description: "",
      domain: `${foreign}.example`,
    });
    const res = await create({ name: "Sneaky", scopes: ["sites:read"], site_ids: [foreign] });
    expect(res.status).to.equal(422);
    expect(res.body.error.details).to.include({ field: "site_ids", site_id: foreign });
    const theirs = await request(service.server)
      .get(`/v1/api-keys?workspace_id=${other.workspaceId}`)
      .set("Cookie", cookie);
    expect(theirs.status).to.equal(404);
  });

  it("the key service itself refuses a site that is not the workspace's, for every caller (the CLI too)", async () => {
    const error = await service.keys
      .create(workspaceId, {
        name: "Nope",
        scopes: ["sites:read"],
        mode: "live",
        site_ids: ["nope"],
      })
      .then(
        () => undefined,
        (e: unknown) => e as { code?: string; details?: object },
      );
    expect(error?.code).to.equal("validation_failed");
    expect(error?.details).to.deep.equal({ field: "site_ids", site_id: "nope" });
    expect((await service.keys.list(workspaceId)).map((key) => key.name)).not.to.include("Nope");
  });

  it("401 without a session, and for an API key in its place", async () => {
    const key = await service.key(workspaceId);
    for (const call of [
      request(service.server).get("/v1/api-keys"),
      request(service.server).get("/v1/api-keys").set("Authorization", `Bearer ${key}`),
      request(service.server)
        .post("/v1/api-keys")
        .set("Authorization", `Bearer ${key}`)
        .send({ name: "x", scopes: ["sites:read"] }),
    ]) {
      expect((await call).status).to.equal(401);
    }
  });

  it("403 for a cross-site request with the cookie, making nothing", async () => {
    const before = (await service.keys.list(workspaceId)).length;
    const res = await create(
      { name: "CSRF", scopes: ["sites:write"] },
      { "Sec-Fetch-Site": "cross-site" },
    );
    expect(res.status).to.equal(403);
    expect((await service.keys.list(workspaceId)).length).to.equal(before);
  });

  for (const [what, body] of [
    ["no scopes", { name: "x", scopes: [] }],
    ["an unknown scope", { name: "x", scopes: ["sites:delete"] }],
    ["no name", { scopes: ["sites:read"] }],
    ["a mode that is not one", { name: "x", scopes: ["sites:read"], mode: "prod" }],
  ] as const) {
    it(`400 for ${what}`, async () => {
      const res = await create(body);
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal("invalid_request");
    });
  }
});
