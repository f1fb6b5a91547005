/**
 * Versions (list, show, restore) and PUT of a whole site as JSON or YAML, through the API on each
 * database.
 */
import { expect } from "chai";
import request from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

let domains = 0;
/** Every site of a workspace has a domain of its own. */
const uniqueDomain = () => `luigis-${++domains}.example`;

const base = {
  business_name: "Luigi's Trattoria",
  business_description: "Neighbourhood Italian restaurant",
  domain: "luigis.example",
  industry: "restaurant",
};

const yamlSite = (
  personality: string,
  token = "tok_luigi_0123456789abcd",
) => `# Luigi's, as an agency keeps it in git
schema_version: 1
business_name: Luigi's Trattoria
business_description: Neighbourhood Italian restaurant
domain: luigis.example
industry: restaurant
personality: ${personality}
adapter:
  type: rest
  config:
    baseUrl: https://api.luigis.example
    auth: { type: bearer, value: ${token} }
    queryMode: client-filter
  collections:
    menu: { source: /menu, searchable_fields: [name], display_fields: [name, price] }
`;

for (const target of databaseTargets) {
  describe(`site versions and PUT on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService;
    let auth: { Authorization: string };

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url);
      auth = { Authorization: `Bearer ${await service.key(await service.workspace())}` };
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("lists versions newest first with source, actor and hash, pages them, and shows one", async () => {
      const id = (
        await request(service.server)
          .post("/v1/sites")
          .set(auth)
          .send({ ...base, domain: uniqueDomain() })
          .expect(201)
      ).body.data.site_id;
      for (const personality of ["Cheerful.", "Formal.", "Brief."]) {
        await request(service.server)
          .patch(`/v1/sites/${id}`)
          .set(auth)
          .send({ personality })
          .expect(200);
      }
      const page1 = await request(service.server)
        .get(`/v1/sites/${id}/versions?limit=3`)
        .set(auth)
        .expect(200);
      expect(page1.body.data.map((v: { version: number }) => v.version)).to.deep.equal([4, 3, 2]);
      const v4 = page1.body.data[0];
      expect(v4.source).to.equal("api");
      expect(v4.actor).to.match(/^api_key:key_/);
      expect(v4.content_hash).to.match(/^[0-9a-f]{64}$/);
      expect(page1.body.meta.next_cursor).to.be.a("string");
      const page2 = await request(service.server)
        .get(`/v1/sites/${id}/versions?limit=3&cursor=${page1.body.meta.next_cursor}`)
        .set(auth)
        .expect(200);
      expect(page2.body.data.map((v: { version: number }) => v.version)).to.deep.equal([1]);
      expect(page2.body.meta.next_cursor).to.equal(null);

      const shown = await request(service.server)
        .get(`/v1/sites/${id}/versions/2`)
        .set(auth)
        .expect(200);
      expect(shown.body.data.version).to.equal(2);
      expect(shown.body.data.site.personality).to.equal("Cheerful.");
    });

    it("restores an old version as a new one, and restoring the current content makes none", async () => {
      const id = (
        await request(service.server)
          .post("/v1/sites")
          .set(auth)
          .send({ ...base, domain: uniqueDomain(), personality: "First." })
          .expect(201)
      ).body.data.site_id;
      await request(service.server)
        .patch(`/v1/sites/${id}`)
        .set(auth)
        .send({ personality: "Second." })
        .expect(200);
      const restored = await request(service.server)
        .post(`/v1/sites/${id}/versions/1/restore`)
        .set(auth)
        .expect(200);
      expect(restored.body.data.personality).to.equal("First.");
      expect(restored.body.meta.version).to.equal(3);
      const again = await request(service.server)
        .post(`/v1/sites/${id}/versions/3/restore`)
        .set(auth)
        .expect(200);
      expect(again.body.meta.version).to.equal(3);
      const v1 = await request(service.server)
        .get(`/v1/sites/${id}/versions/1`)
        .set(auth)
        .expect(200);
      const v3 = await request(service.server)
        .get(`/v1/sites/${id}/versions/3`)
        .set(auth)
        .expect(200);
      expect(v3.body.data.content_hash).to.equal(v1.body.data.content_hash);
    });

    it("restores sealed secrets too, and never shows them", async () => {
      const adapter = (value: string) => ({
        type: "rest",
        config: { baseUrl: "https://api.luigis.example", auth: { type: "bearer", value } },
        collections: {},
      });
      const id = (
        await request(service.server)
          .post("/v1/sites")
          .set(auth)
          .send({ ...base, domain: uniqueDomain(), adapter: adapter("tok_first_0123456789aaaa") })
          .expect(201)
      ).body.data.site_id;
      await request(service.server)
        .patch(`/v1/sites/${id}`)
        .set(auth)
        .send({ adapter: adapter("tok_second_0123456789bbbb") })
        .expect(200);
      const shown = await request(service.server)
        .get(`/v1/sites/${id}/versions/1`)
        .set(auth)
        .expect(200);
      expect(shown.body.data.site.adapter.config.auth.value).to.equal("••••aaaa");
      const restored = await request(service.server)
        .post(`/v1/sites/${id}/versions/1/restore`)
        .set(auth)
        .expect(200);
      expect(restored.body.data.adapter.config.auth.value).to.equal("••••aaaa");
      expect(restored.body.meta.version).to.equal(3);
    });

    it("answers 404 for an unknown version or another workspace's site, 400 for a bad number, 403 without the scope", async () => {
      const id = (
        await request(service.server)
          .post("/v1/sites")
          .set(auth)
          .send({ ...base, domain: uniqueDomain() })
          .expect(201)
      ).body.data.site_id;
      const unknown = await request(service.server)
        .get(`/v1/sites/${id}/versions/9`)
        .set(auth)
        .expect(404);
      expect(unknown.body.error.code).to.equal("not_found");
      await request(service.server)
        .post(`/v1/sites/${id}/versions/9/restore`)
        .set(auth)
        .expect(404);
      const bad = await request(service.server)
        .get(`/v1/sites/${id}/versions/zero`)
        .set(auth)
        .expect(400);
      expect(bad.body.error.details.field).to.equal("n");
      const stranger = { Authorization: `Bearer ${await service.key(await service.workspace())}` };
      await request(service.server).get(`/v1/sites/${id}/versions`).set(stranger).expect(404);
      const reader = {
        Authorization: `Bearer ${await service.key(await service.workspace(), { scopes: ["sites:read"] })}`,
      };
      const denied = await request(service.server)
        .post(`/v1/sites/${id}/versions/1/restore`)
        .set(reader)
        .expect(403);
      expect(denied.body.error.code).to.equal("forbidden");
    });

    it("PUT creates a site from YAML (201, source yaml), replaces it (200), and the same file twice makes no new version", async () => {
      const put = (body: string) =>
        request(service.server)
          .put("/v1/sites/luigis-trattoria")
          .set(auth)
          .set("Content-Type", "application/yaml")
          .send(body);
      const created = await put(yamlSite("Warm.")).expect(201);
      expect(created.body.data).to.include({ site_id: "luigis-trattoria", personality: "Warm." });
      expect(created.body.data.adapter.config.auth.value).to.equal("••••abcd");
      const same = await put(yamlSite("Warm.")).expect(200);
      expect(same.body.meta.version).to.equal(1);
      const changed = await put(yamlSite("Warm and quick.")).expect(200);
      expect(changed.body.meta.version).to.equal(2);
      // A field left out of the file is back to its default: PUT replaces the whole site.
      await request(service.server)
        .patch("/v1/sites/luigis-trattoria")
        .set(auth)
        .send({ voice: "sage" })
        .expect(200);
      const replaced = await put(yamlSite("Warm and quick.")).expect(200);
      expect(replaced.body.data.voice).to.equal("alloy");
      const versions = await request(service.server)
        .get("/v1/sites/luigis-trattoria/versions")
        .set(auth)
        .expect(200);
      expect(versions.body.data.map((v: { source: string }) => v.source)).to.deep.equal([
        "yaml",
        "api",
        "yaml",
        "yaml",
      ]);
    });

    it("PUT takes JSON too, refuses a site_id that differs from the path, and bad YAML with its line", async () => {
      const json = await request(service.server)
        .put("/v1/sites/json-site")
        .set(auth)
        .send({ ...base, domain: "json.example" })
        .expect(201);
      expect(json.body.data.site_id).to.equal("json-site");
      const mismatch = await request(service.server)
        .put("/v1/sites/json-site")
        .set(auth)
        .send({ ...base, domain: uniqueDomain(), site_id: "other-site" })
        .expect(400);
      expect(mismatch.body.error.details.field).to.equal("site_id");
      const array = await request(service.server)
        .put("/v1/sites/json-site")
        .set(auth)
        .send([1, 2])
        .expect(400);
      expect(array.body.error.details.field).to.equal("body");
      const dupKey = await request(service.server)
        .put("/v1/sites/yaml-broken")
        .set(auth)
        .set("Content-Type", "application/yaml")
        .send("business_name: A\nbusiness_name: B\n")
        .expect(400);
      expect(dupKey.body.error.code).to.equal("invalid_request");
      expect(dupKey.body.error.details.line).to.equal(2);
      const invalid = await request(service.server)
        .put("/v1/sites/yaml-invalid")
        .set(auth)
        .set("Content-Type", "application/yaml")
        .send("business_name: A\nbusiness_description: B\ndomain: not a host\n")
        .expect(400);
      expect(invalid.body.error.details.field).to.equal("domain");
    });
  });
}
