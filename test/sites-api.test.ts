/**
 * The sites API over real HTTP, on each of the three databases: the happy path and every error
 * path with its code. Every test works in a workspace of its own, with a key of its own, and
 * creates in hooks the sites it starts from, so each runs alone with --grep.
 */
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const dental = {
  business_name: "Bright Smiles Dental",
  business_description: "Family dentistry in Portland",
  domain: "brightsmiles.example",
  industry: "dental",
  timezone: "America/Los_Angeles",
  language: "en",
};

const restAdapter = (baseUrl: string, token = "tok_live_abcdefghijklmnop1234") => ({
  type: "rest",
  config: { baseUrl, auth: { type: "bearer", value: token }, queryMode: "querystring" },
  collections: {
    services: {
      source: "/services",
      searchable_fields: ["name"],
      filterable_fields: ["price"],
      display_fields: ["name", "price"],
    },
  },
});

for (const target of databaseTargets) {
  describe(`sites API on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService;
    /** This test's workspace and a key of it with every scope. */
    let workspace: string;
    let key: string;
    const auth = () => ({ Authorization: `Bearer ${key}` });
    /** POST /v1/sites in this test's workspace, expecting 201; the site created. */
    const create = async (body: object) =>
      (await request(service.server).post("/v1/sites").set(auth()).send(body).expect(201)).body
        .data;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_PLUGINS: "sitevoice-adapter-example",
      });
    });
    beforeEach(async () => {
      workspace = await service.workspace();
      key = await service.key(workspace);
    });

    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    describe("happy path", () => {
      it("creates a site with a generated site_id and the full SiteConfig in the envelope", async () => {
        const res = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send(dental)
          .expect(201);
        expect(res.body.success).to.equal(true);
        expect(res.body.meta.request_id).to.match(/^req_/);
        expect(res.headers["x-request-id"]).to.equal(res.body.meta.request_id);
        expect(res.body.meta.ts).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const site = res.body.data;
        expect(site.site_id).to.match(/^site_[0-9a-z]{26}$/);
        expect(site).to.include({
          business_name: dental.business_name,
          domain: dental.domain,
          timezone: "America/Los_Angeles",
        });
        expect(site.voice).to.equal("alloy");
        expect(site.additional_domains).to.deep.equal([]);
        expect(site.version).to.equal(1);
        expect(res.body.meta.version).to.equal(1);
      });

      describe("a created site", () => {
        let created: { site_id: string } & Record<string, unknown>;
        let id: string;

        beforeEach(async () => {
          created = await create({ ...dental, domain: "crud.example" });
          id = created.site_id;
        });

        it("reads as it was created", async () => {
          const read = await request(service.server).get(`/v1/sites/${id}`).set(auth()).expect(200);
          expect(read.body.data).to.deep.equal(created);
        });

        it("patches as version 2, normalising the domains and keeping the rest", async () => {
          const patched = await request(service.server)
            .patch(`/v1/sites/${id}`)
            .set(auth())
            .send({ additional_domains: ["WWW.crud.example"], personality: "Warm and brief." })
            .expect(200);
          expect(patched.body.data.additional_domains).to.deep.equal(["www.crud.example"]);
          expect(patched.body.data.personality).to.equal("Warm and brief.");
          expect(patched.body.data.business_name).to.equal(dental.business_name);
          expect(patched.body.meta.version).to.equal(2);
        });

        it("makes no new version for a patch that changes nothing", async () => {
          await request(service.server)
            .patch(`/v1/sites/${id}`)
            .set(auth())
            .send({ personality: "Warm and brief." })
            .expect(200);
          const again = await request(service.server)
            .patch(`/v1/sites/${id}`)
            .set(auth())
            .send({ personality: "Warm and brief." })
            .expect(200);
          expect(again.body.meta.version).to.equal(2);
          const versions = await service.store.sites.listVersions(id);
          expect(versions.map((v) => [v.version, v.source])).to.deep.equal([
            [2, "api"],
            [1, "api"],
          ]);
        });

        it("deletes it; a read after is 404 not_found", async () => {
          const deleted = await request(service.server)
            .delete(`/v1/sites/${id}`)
            .set(auth())
            .expect(200);
          expect(deleted.body.data).to.deep.equal({ site_id: id, deleted: true });
          const gone = await request(service.server).get(`/v1/sites/${id}`).set(auth()).expect(404);
          expect(gone.body.error.code).to.equal("not_found");
        });
      });

      describe("listing three sites", () => {
        const names = (res: request.Response) =>
          res.body.data.map((s: { business_name: string }) => s.business_name);
        const list = (query: string) =>
          request(service.server).get(`/v1/sites${query}`).set(auth()).expect(200);

        beforeEach(async () => {
          for (const n of [1, 2, 3]) {
            await create({ ...dental, business_name: `Clinic ${n}`, domain: `clinic${n}.example` });
          }
        });

        it("pages with limit and cursor", async () => {
          const first = await list("?limit=2");
          expect(names(first)).to.deep.equal(["Clinic 1", "Clinic 2"]);
          expect(first.body.meta.next_cursor).to.be.a("string");
          const second = await list(`?limit=2&cursor=${first.body.meta.next_cursor}`);
          expect(names(second)).to.deep.equal(["Clinic 3"]);
          expect(second.body.meta.next_cursor).to.equal(null);
        });

        it("filters by q on the domain, ignoring case", async () => {
          const q = await list("?q=CLINIC2");
          expect(q.body.data.map((s: { domain: string }) => s.domain)).to.deep.equal([
            "clinic2.example",
          ]);
        });

        it("filters by q on the name", async () => {
          expect(names(await list("?q=Clinic%203"))).to.deep.equal(["Clinic 3"]);
        });

        it("takes % in q as itself, not as a wildcard", async () => {
          const wild = await list("?q=%25");
          expect(wild.body.data).to.deep.equal([]);
        });
      });

      describe("a site with a secret", () => {
        const token = "tok_live_abcdefghijklmnop1234";
        let res: request.Response;
        let site: { site_id: string; adapter: ReturnType<typeof restAdapter> };

        beforeEach(async () => {
          res = await request(service.server)
            .post("/v1/sites")
            .set(auth())
            .send({
              ...dental,
              domain: "secret.example",
              adapter: restAdapter("https://api.secret.example/v1", token),
            })
            .expect(201);
          site = res.body.data;
        });

        it("masks the secret in the answer to the create and to a read", async () => {
          expect(site.adapter.config.auth.value).to.equal("••••1234");
          expect(JSON.stringify(res.body)).not.to.include(token);
          const read = await request(service.server)
            .get(`/v1/sites/${site.site_id}`)
            .set(auth())
            .expect(200);
          expect(read.body.data.adapter.config.auth.value).to.equal("••••1234");
          expect(JSON.stringify(read.body)).not.to.include(token);
        });

        it("seals the secret at rest", async () => {
          const row = await service.store.sites.get(site.site_id);
          expect(row?.config).not.to.include(token);
          expect(row?.config).to.include("enc:v1:");
        });

        it("keeps it when the masked value comes back: the read adapter sent back is no change", async () => {
          const same = await request(service.server)
            .patch(`/v1/sites/${site.site_id}`)
            .set(auth())
            .send({ adapter: site.adapter })
            .expect(200);
          expect(same.body.meta.version).to.equal(1);
        });

        it("takes a new token as a change, and masks it too", async () => {
          const changed = await request(service.server)
            .patch(`/v1/sites/${site.site_id}`)
            .set(auth())
            .send({
              adapter: restAdapter(
                "https://api.secret.example/v1",
                "tok_live_zzzzzzzzzzzzzzzz9876",
              ),
            })
            .expect(200);
          expect(changed.body.meta.version).to.equal(2);
          expect(changed.body.data.adapter.config.auth.value).to.equal("••••9876");
        });
      });
      describe("a masked secret is bound to its destination", () => {
        const token = "tok_live_abcdefghijklmnop5678";
        let siteId: string;
        let read: { adapter: ReturnType<typeof restAdapter> };

        beforeEach(async () => {
          const res = await request(service.server)
            .post("/v1/sites")
            .set(auth())
            .send({
              ...dental,
              domain: `bound-${Date.now()}.example`,
              adapter: restAdapter("https://api.bound.example/v1", token),
            })
            .expect(201);
          siteId = res.body.data.site_id;
          read = res.body.data;
          expect(read.adapter.config.auth.value).to.equal("••••5678");
        });

        const storedToken = async () => {
          const site = await service.sites.openConfig(operatorPrincipal(workspace, "test"), siteId);
          return (site.adapter?.config as { auth?: { value?: string } }).auth?.value;
        };

        it("PATCH: a masked token sent with a baseUrl on another host is 422 naming the secret", async () => {
          const moved = { ...read.adapter, config: { ...read.adapter.config } };
          moved.config.baseUrl = "https://attacker.example/v1";
          const res = await request(service.server)
            .patch(`/v1/sites/${siteId}`)
            .set(auth())
            .send({ adapter: moved })
            .expect(422);
          expect(res.body.error.code).to.equal("validation_failed");
          expect(res.body.error.details.field).to.equal("adapter.config.auth.value");
          const stored = await service.store.sites.get(siteId);
          expect(stored?.version).to.equal(1);
          expect(stored?.config).to.include("https://api.bound.example/v1");
        });

        it("PATCH: another port or scheme of the same host is another destination too", async () => {
          const moved = { ...read.adapter, config: { ...read.adapter.config } };
          moved.config.baseUrl = "https://api.bound.example:8443/v1";
          await request(service.server)
            .patch(`/v1/sites/${siteId}`)
            .set(auth())
            .send({ adapter: moved })
            .expect(422);
        });

        it("PATCH: the same origin with another path keeps the stored secret", async () => {
          const moved = { ...read.adapter, config: { ...read.adapter.config } };
          moved.config.baseUrl = "https://api.bound.example/v2";
          const res = await request(service.server)
            .patch(`/v1/sites/${siteId}`)
            .set(auth())
            .send({ adapter: moved })
            .expect(200);
          expect(res.body.meta.version).to.equal(2);
          expect(await storedToken()).to.equal(token);
        });

        it("PATCH: a new host with the secret given in full is accepted", async () => {
          const res = await request(service.server)
            .patch(`/v1/sites/${siteId}`)
            .set(auth())
            .send({ adapter: restAdapter("https://api.moved.example/v1", token) })
            .expect(200);
          expect(res.body.meta.version).to.equal(2);
          expect(await storedToken()).to.equal(token);
        });

        it("PATCH: a masked value that matches no stored secret is 422, never stored as written", async () => {
          const res = await request(service.server)
            .patch(`/v1/sites/${siteId}`)
            .set(auth())
            .send({ adapter: restAdapter("https://api.bound.example/v1", "••••0000") })
            .expect(422);
          expect(res.body.error.details.field).to.equal("adapter.config.auth.value");
          expect(await storedToken()).to.equal(token);
        });

        describe("PUT of the whole site with a masked token and another host", () => {
          let whole: typeof dental & { adapter: ReturnType<typeof restAdapter> };

          beforeEach(async () => {
            whole = {
              ...dental,
              domain: (await service.store.sites.get(siteId))!.domain,
              adapter: { ...read.adapter, config: { ...read.adapter.config } },
            };
            whole.adapter.config.baseUrl = "https://attacker.example/v1";
          });

          it("PUT ?dry_run=true: 422 naming the secret", async () => {
            const plan = await request(service.server)
              .put(`/v1/sites/${siteId}?dry_run=true`)
              .set(auth())
              .send(whole)
              .expect(422);
            expect(plan.body.error.details.field).to.equal("adapter.config.auth.value");
          });

          it("PUT: 422, and no new version", async () => {
            await request(service.server)
              .put(`/v1/sites/${siteId}`)
              .set(auth())
              .send(whole)
              .expect(422);
            expect((await service.store.sites.get(siteId))?.version).to.equal(1);
          });
        });

        it("PATCH: a connection string's masked password does not follow another host", async () => {
          const created = await request(service.server)
            .post("/v1/sites")
            .set(auth())
            .send({
              ...dental,
              domain: `bound-pg-${Date.now()}.example`,
              adapter: {
                type: "postgres",
                config: { connectionString: "postgres://shop:hunter2secret@db.example:5432/shop" },
                collections: {},
              },
            })
            .expect(201);
          const masked = created.body.data.adapter.config.connectionString as string;
          const res = await request(service.server)
            .patch(`/v1/sites/${created.body.data.site_id}`)
            .set(auth())
            .send({
              adapter: {
                type: "postgres",
                config: { connectionString: masked.replace("db.example", "db.attacker.example") },
                collections: {},
              },
            })
            .expect(422);
          expect(res.body.error.details.field).to.equal("adapter.config.connectionString");
        });
      });

      it("masks the password inside a connectionString", async () => {
        const res = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({
            ...dental,
            domain: "shop.example",
            adapter: {
              type: "postgres",
              config: { connectionString: "postgres://shop:hunter2secret@db.example:5432/shop" },
              collections: {},
            },
          })
          .expect(201);
        expect(res.body.data.adapter.config.connectionString).to.equal(
          "postgres://shop:••••@db.example:5432/shop",
        );
      });
    });

    describe("errors", () => {
      it("400 invalid_request with details.field for a missing field", async () => {
        const { domain: _omit, ...noDomain } = dental;
        const missingField = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send(noDomain)
          .expect(400);
        expect(missingField.body.success).to.equal(false);
        expect(missingField.body.error.code).to.equal("invalid_request");
        expect(missingField.body.error.details.field).to.equal("domain");
        expect(missingField.body.meta.request_id).to.match(/^req_/);
      });

      for (const [what, body] of [
        ["null", "null"],
        ["a number", "7"],
        ["a list", "[1]"],
      ] as const) {
        it(`400 "The body must be an object" for ${what} as the body of a create or a put`, async () => {
          const created = await request(service.server)
            .post("/v1/sites")
            .set(auth())
            .set("Content-Type", "application/json")
            .send(body);
          const put = await request(service.server)
            .put("/v1/sites/not-there-yet")
            .set(auth())
            .set("Content-Type", "application/json")
            .send(body);
          for (const res of [created, put]) {
            expect([res.status, res.body.error?.code, res.body.error?.message]).to.deep.equal([
              400,
              "invalid_request",
              "The body must be an object",
            ]);
          }
        });
      }

      it("400 invalid_request with details.field for a malformed field", async () => {
        const badHost = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({ ...dental, domain: "not a host" })
          .expect(400);
        expect(badHost.body.error.details.field).to.equal("domain");
      });

      it("400 invalid_request with details.field for a field the schema does not have", async () => {
        const unknown = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({ ...dental, colour: "red" })
          .expect(400);
        expect(unknown.body.error.details.field).to.equal("colour");
      });

      it("400 invalid_request for malformed JSON", async () => {
        const bad = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .set("Content-Type", "application/json")
          .send('{"business_name": ')
          .expect(400);
        expect(bad.body.error.code).to.equal("invalid_request");
        expect(bad.body.error.details.field).to.equal("body");
      });

      it("400 for a limit over 200", async () => {
        const limit = await request(service.server)
          .get("/v1/sites?limit=201")
          .set(auth())
          .expect(400);
        expect(limit.body.error.details.field).to.equal("limit");
      });

      it("400 for a forged cursor", async () => {
        const cursor = await request(service.server)
          .get("/v1/sites?cursor=bm90LWEtY3Vyc29y")
          .set(auth())
          .expect(400);
        expect(cursor.body.error.details.field).to.equal("cursor");
      });

      it("401 unauthorized for a missing key", async () => {
        const none = await request(service.server).get("/v1/sites").expect(401);
        expect(none.body.error.code).to.equal("unauthorized");
        expect(none.body.error.message).to.match(/missing/i);
      });

      it("401 unauthorized for a malformed key", async () => {
        const malformed = await request(service.server)
          .get("/v1/sites")
          .set("Authorization", "Bearer sk_nope")
          .expect(401);
        expect(malformed.body.error.message).to.match(/malformed/i);
      });

      it("401 unauthorized for a key sent with another scheme than Bearer", async () => {
        const basic = await request(service.server)
          .get("/v1/sites")
          .set("Authorization", `Basic ${key}`)
          .expect(401);
        expect(basic.body.error.code).to.equal("unauthorized");
      });

      it("401 unauthorized for an unknown key", async () => {
        const unknown = await request(service.server)
          .get("/v1/sites")
          .set("Authorization", `Bearer vk_test_${"A".repeat(32)}`)
          .expect(401);
        expect(unknown.body.error.message).to.match(/unknown/i);
      });

      it("401 unauthorized for a revoked key that worked before", async () => {
        const doomed = await service.keys.create(workspace, {
          name: "doomed",
          scopes: ["sites:read"],
          mode: "live",
        });
        await request(service.server)
          .get("/v1/sites")
          .set("Authorization", `Bearer ${doomed.value}`)
          .expect(200);
        await service.keys.revoke(workspace, doomed.id);
        const revoked = await request(service.server)
          .get("/v1/sites")
          .set("Authorization", `Bearer ${doomed.value}`)
          .expect(401);
        expect(revoked.body.error.message).to.match(/revoked/i);
      });

      it("403 forbidden for a missing scope, naming it", async () => {
        const readOnly = await service.key(workspace, { scopes: ["sites:read"] });
        const res = await request(service.server)
          .post("/v1/sites")
          .set("Authorization", `Bearer ${readOnly}`)
          .send(dental)
          .expect(403);
        expect(res.body.error.code).to.equal("forbidden");
        expect(res.body.error.details.required_scope).to.equal("sites:write");
      });

      describe("a key limited to one site of its workspace", () => {
        let mine: { site_id: string };
        let theirs: { site_id: string };
        let tenantAuth: { Authorization: string };

        beforeEach(async () => {
          mine = await create({ ...dental, domain: "mine.example" });
          theirs = await create({ ...dental, domain: "theirs.example" });
          const tenant = await service.key(workspace, {
            scopes: ["sites:read", "sites:write"],
            siteIds: [mine.site_id],
          });
          tenantAuth = { Authorization: `Bearer ${tenant}` };
        });

        it("reads and patches its site", async () => {
          await request(service.server)
            .get(`/v1/sites/${mine.site_id}`)
            .set(tenantAuth)
            .expect(200);
          await request(service.server)
            .patch(`/v1/sites/${mine.site_id}`)
            .set(tenantAuth)
            .send({ personality: "Hi" })
            .expect(200);
        });

        it("403 forbidden reading another site", async () => {
          const other = await request(service.server)
            .get(`/v1/sites/${theirs.site_id}`)
            .set(tenantAuth)
            .expect(403);
          expect(other.body.error.code).to.equal("forbidden");
        });

        it("403 deleting another site", async () => {
          await request(service.server)
            .delete(`/v1/sites/${theirs.site_id}`)
            .set(tenantAuth)
            .expect(403);
        });

        it("403 creating a site", async () => {
          await request(service.server)
            .post("/v1/sites")
            .set(tenantAuth)
            .send({ ...dental, domain: "new.example" })
            .expect(403);
        });

        it("lists only its site", async () => {
          const listed = await request(service.server).get("/v1/sites").set(tenantAuth).expect(200);
          expect(listed.body.data.map((s: { site_id: string }) => s.site_id)).to.deep.equal([
            mine.site_id,
          ]);
        });
      });

      it("404 not_found for an unknown site", async () => {
        const unknown = await request(service.server)
          .get("/v1/sites/site_doesnotexist")
          .set(auth())
          .expect(404);
        expect(unknown.body.error.code).to.equal("not_found");
      });

      describe("404 not_found for another workspace's site", () => {
        let foreign: { site_id: string };

        beforeEach(async () => {
          const otherWs = await service.workspace();
          const otherKey = await service.key(otherWs);
          foreign = (
            await request(service.server)
              .post("/v1/sites")
              .set({ Authorization: `Bearer ${otherKey}` })
              .send({ ...dental, domain: "foreign.example" })
              .expect(201)
          ).body.data;
        });

        const calls = {
          GET: (agent: ReturnType<typeof request>, id: string) => agent.get(`/v1/sites/${id}`),
          PATCH: (agent: ReturnType<typeof request>, id: string) =>
            agent.patch(`/v1/sites/${id}`).send({ personality: "x" }),
          DELETE: (agent: ReturnType<typeof request>, id: string) =>
            agent.delete(`/v1/sites/${id}`),
        };
        for (const [method, call] of Object.entries(calls)) {
          it(`404 not_found for ${method} of another workspace's site`, async () => {
            const res = await call(request(service.server), foreign.site_id)
              .set(auth())
              .expect(404);
            expect(res.body.error.code).to.equal("not_found");
          });
        }
      });

      it("404 not_found in the envelope for an unknown route", async () => {
        const route = await request(service.server).get("/v1/nothing-here").expect(404);
        expect(route.body).to.include({ success: false });
        expect(route.body.error.code).to.equal("not_found");
        expect(route.headers["x-request-id"]).to.match(/^req_/);
      });
      it("409 conflict for a duplicate site_id", async () => {
        await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({ ...dental, domain: "acme-dental.example", site_id: "acme-dental" })
          .expect(201);
        const dup = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({ ...dental, domain: "acme-dental-2.example", site_id: "acme-dental" })
          .expect(409);
        expect(dup.body.error.code).to.equal("conflict");
        expect(dup.body.error.details.site_id).to.equal("acme-dental");
      });

      it("413 payload_too_large for a body over 1 MiB", async () => {
        const res = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({ ...dental, business_description: "x".repeat(1024 * 1024) })
          .expect(413);
        expect(res.body.error.code).to.equal("payload_too_large");
      });

      it("422 validation_failed for the plan's site count, with details", async () => {
        const free = await service.workspace("free");
        const freeKey = { Authorization: `Bearer ${await service.key(free)}` };
        await request(service.server)
          .post("/v1/sites")
          .set(freeKey)
          .send({ ...dental, domain: "one.example" })
          .expect(201);
        const res = await request(service.server)
          .post("/v1/sites")
          .set(freeKey)
          .send({ ...dental, domain: "two.example" })
          .expect(422);
        expect(res.body.error.code).to.equal("validation_failed");
        expect(res.body.error.details).to.deep.include({ reason: "plan_limit", limit: 1 });
        const listed = await request(service.server).get("/v1/sites").set(freeKey).expect(200);
        expect(listed.body.data).to.have.length(1);
      });

      it("422 for a REST baseUrl over plain http to another host", async () => {
        const res = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({
            ...dental,
            domain: "plain.example",
            adapter: restAdapter("http://api.plain.example/v1"),
          })
          .expect(422);
        expect(res.body.error.code).to.equal("validation_failed");
        expect(res.body.error.details.field).to.equal("adapter.config.baseUrl");
      });

      for (const base of ["http://localhost:8080/api", "http://127.0.0.1/api"]) {
        it(`accepts a REST baseUrl over plain http to ${new URL(base).host}`, async () => {
          await request(service.server)
            .post("/v1/sites")
            .set(auth())
            .send({ ...dental, domain: "plain.example", adapter: restAdapter(base) })
            .expect(201);
        });
      }

      it("422 for a PATCH to a REST baseUrl over plain http to a private address", async () => {
        const created = await create({ ...dental, domain: "later.example" });
        const patch = await request(service.server)
          .patch(`/v1/sites/${created.site_id}`)
          .set(auth())
          .send({ adapter: restAdapter("http://10.0.0.5/api") })
          .expect(422);
        expect(patch.body.error.details.field).to.equal("adapter.config.baseUrl");
      });

      it("400 naming the field, and the plugin in details, when a plugin's configSchema refuses the adapter config", async () => {
        const bad = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({
            ...dental,
            adapter: { type: "example", config: { dataset: 5 }, collections: {} },
          })
          .expect(400);
        expect(bad.body.error.code).to.equal("invalid_request");
        expect(bad.body.error.message).to.equal("adapter.config.dataset must be a string");
        expect(bad.body.error.details).to.include({
          field: "adapter.config.dataset",
          plugin: "sitevoice-adapter-example",
        });
      });

      it("accepts an adapter config that the plugin's configSchema allows, as given", async () => {
        const good = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({
            ...dental,
            domain: "example-adapter.example",
            adapter: { type: "example", config: { dataset: "empty" }, collections: {} },
          })
          .expect(201);
        expect(good.body.data.adapter.config).to.deep.equal({ dataset: "empty" });
      });

      it("422 for an adapter type no plugin serves", async () => {
        const res = await request(service.server)
          .post("/v1/sites")
          .set(auth())
          .send({ ...dental, adapter: { type: "airtable-x", config: {}, collections: {} } })
          .expect(422);
        expect(res.body.error.details).to.include({
          field: "adapter.type",
          reason: "unknown_adapter_type",
        });
      });

      describe("input rules", () => {
        /** A POST in this test's workspace. */
        const createIn = async (body: object) => ({
          res: await request(service.server).post("/v1/sites").set(auth()).send(body),
        });
        const refused = (res: request.Response, status: number, field: string) => {
          expect(res.status, JSON.stringify(res.body)).to.equal(status);
          expect(res.body.success).to.equal(false);
          expect(res.body.error.details.field).to.equal(field);
        };

        for (const reserved of ["sites", "health", "leads", "public", "analytics", "webhooks"]) {
          it(`422 for site_id "${reserved}", a path of the API it would shadow`, async () => {
            const { res } = await createIn({ ...dental, site_id: reserved });
            refused(res, 422, "site_id");
            expect(res.body.error.code).to.equal("validation_failed");
          });
        }

        it("422 for a voice the configured voice provider does not have, listing its voices", async () => {
          const { res } = await createIn({ ...dental, voice: "bogus" });
          refused(res, 422, "voice");
          expect(res.body.error.message).to.include("alloy");
        });

        it("400 naming adapter.config.__proto__: a JSON key so named is a field like any other", async () => {
          const res = await request(service.server)
            .post("/v1/sites")
            .set(auth())
            .set("Content-Type", "application/json")
            .send(
              `{"business_name":"P","business_description":"","domain":"proto.example","adapter":` +
                `{"type":"rest","config":{"baseUrl":"https://api.proto.example",` +
                `"__proto__":{"timeoutMs":1}},"collections":{}}}`,
            );
          refused(res, 400, "adapter.config.__proto__");
          expect(res.body.error.message).to.equal("adapter.config.__proto__ is not a known field");
        });

        it("400 for a time zone that is not an IANA zone", async () => {
          const { res } = await createIn({ ...dental, timezone: "Mars/Olympus" });
          refused(res, 400, "timezone");
        });

        for (const [where, body, field] of [
          ["a domain", { additional_domains: ["example.com:99999"] }, "additional_domains.0"],
          [
            "a baseUrl",
            { adapter: restAdapter("https://api.example.com:70000/v1") },
            "adapter.config.baseUrl",
          ],
          [
            "a connection string",
            {
              adapter: {
                type: "mysql",
                config: { connectionString: "mysql://u:p@db.example:65536/shop" },
                collections: {},
              },
            },
            "adapter.config.connectionString",
          ],
        ] as const) {
          it(`400 for a port out of range in ${where}`, async () => {
            refused((await createIn({ ...dental, ...body })).res, 400, field);
          });
        }

        it("400 on save for a SQL collection source that is not a (schema-qualified) table name", async () => {
          const { res } = await createIn({
            ...dental,
            adapter: {
              type: "postgres",
              config: { connectionString: "postgres://u:p@db.example/shop" },
              collections: {
                products: {
                  source: "products; DROP TABLE products",
                  searchable_fields: ["name"],
                  filterable_fields: [],
                  display_fields: ["name"],
                },
              },
            },
          });
          refused(res, 400, "adapter.collections.products.source");
        });

        it("accepts a searchable or filterable field that is not displayed (search by it, show others)", async () => {
          const adapter = restAdapter("https://api.example.com/v1");
          adapter.collections.services.searchable_fields = ["name", "description"];
          adapter.collections.services.filterable_fields = ["price", "in_stock"];
          const { res } = await createIn({ ...dental, adapter });
          expect(res.status, JSON.stringify(res.body)).to.equal(201);
        });

        it("422 for an industry without a template, as validate says", async () => {
          const { res } = await createIn({ ...dental, industry: "veterinary" });
          refused(res, 422, "industry");
        });

        describe("409 when another site of the workspace has the domain", () => {
          beforeEach(async () => {
            await create({ ...dental, domain: "taken.example" });
          });

          it("409 conflict for the domain in another case", async () => {
            const same = await request(service.server)
              .post("/v1/sites")
              .set(auth())
              .send({ ...dental, domain: "Taken.Example" })
              .expect(409);
            expect(same.body.error.code).to.equal("conflict");
            expect(same.body.error.details).to.include({
              field: "domain",
              domain: "taken.example",
            });
          });

          it("409 for the domain as an additional domain", async () => {
            const extra = await request(service.server)
              .post("/v1/sites")
              .set(auth())
              .send({ ...dental, domain: "other.example", additional_domains: ["taken.example"] })
              .expect(409);
            expect(extra.body.error.details.field).to.equal("additional_domains.0");
          });

          it("409 for a patch that adds the domain to another site", async () => {
            const mine = await create({ ...dental, domain: "mine.example" });
            await request(service.server)
              .patch(`/v1/sites/${mine.site_id}`)
              .set(auth())
              .send({ additional_domains: ["www.mine.example", "taken.example"] })
              .expect(409);
          });
        });

        describe("a domain of a site of the workspace", () => {
          let first: string;

          beforeEach(async () => {
            first = (await create({ ...dental, domain: "moving.example" })).site_id;
          });

          it("can be taken once a change frees it", async () => {
            await request(service.server)
              .patch(`/v1/sites/${first}`)
              .set(auth())
              .send({ domain: "moved.example" })
              .expect(200);
            await request(service.server)
              .post("/v1/sites")
              .set(auth())
              .send({ ...dental, domain: "moving.example" })
              .expect(201);
          });

          it("can be taken once a delete frees it", async () => {
            await request(service.server).delete(`/v1/sites/${first}`).set(auth()).expect(200);
            await request(service.server)
              .post("/v1/sites")
              .set(auth())
              .send({ ...dental, domain: "moving.example" })
              .expect(201);
          });

          it("may be used by another workspace at any time", async () => {
            const ws = await service.workspace();
            const elsewhere = await request(service.server)
              .post("/v1/sites")
              .set({ Authorization: `Bearer ${await service.key(ws)}` })
              .send({ ...dental, domain: "moving.example" });
            expect(elsewhere.status).to.equal(201);
          });
        });

        it("422 for a reference like ${env:…} in a field that is not a secret, as validate says", async () => {
          const { res } = await createIn({
            ...dental,
            personality: "Say ${env:SECRET_WORD} often.",
          });
          refused(res, 422, "personality");
        });

        it("lists every problem at once in details.errors", async () => {
          const { res } = await createIn({ ...dental, voice: "bogus", industry: "veterinary" });
          expect(res.status).to.equal(422);
          expect(
            res.body.error.details.errors.map((e: { field: string }) => e.field),
          ).to.have.members(["voice", "industry"]);
        });
      });
    });
  });
}
