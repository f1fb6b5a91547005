/**
 * Versions (list, show, restore) and PUT of a whole site as JSON or YAML, through the API on each
 * database. Every test works in a workspace of its own and makes the site and versions it starts
 * from in hooks; site ids a test chooses get a random suffix (they are unique across workspaces).
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { parse as parseYaml } from "yaml";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const base = {
  business_name: "Luigi's Trattoria",
  business_description: "Neighbourhood Italian restaurant",
  domain: "luigis.example",
  industry: "restaurant",
};

/** A site id of this test's own. */
const siteIdOf = (prefix: string) => `${prefix}-${crypto.randomBytes(4).toString("hex")}`;

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
    /** A key with every scope in this test's workspace. */
    let auth: { Authorization: string };
    let workspaceId: string;
    /** POST /v1/sites in this test's workspace, expecting 201; the new site's id. */
    const create = async (body: object): Promise<string> =>
      (await request(service.server).post("/v1/sites").set(auth).send(body).expect(201)).body.data
        .site_id;
    const patch = (id: string, body: object) =>
      request(service.server).patch(`/v1/sites/${id}`).set(auth).send(body).expect(200);

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url);
    });
    beforeEach(async () => {
      workspaceId = await service.workspace();
      auth = { Authorization: `Bearer ${await service.key(workspaceId)}` };
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    describe("a site patched three times", () => {
      let id: string;

      beforeEach(async () => {
        id = await create(base);
        for (const personality of ["Cheerful.", "Formal.", "Brief."]) {
          await patch(id, { personality });
        }
      });

      it("lists versions newest first with source, actor and hash", async () => {
        const page1 = await request(service.server)
          .get(`/v1/sites/${id}/versions?limit=3`)
          .set(auth)
          .expect(200);
        expect(page1.body.data.map((v: { version: number }) => v.version)).to.deep.equal([4, 3, 2]);
        const v4 = page1.body.data[0];
        expect(v4.source).to.equal("api");
        expect(v4.actor).to.match(/^api_key:key_/);
        expect(v4.content_hash).to.match(/^[0-9a-f]{64}$/);
      });

      it("pages versions with limit and cursor", async () => {
        const page1 = await request(service.server)
          .get(`/v1/sites/${id}/versions?limit=3`)
          .set(auth)
          .expect(200);
        expect(page1.body.meta.next_cursor).to.be.a("string");
        const page2 = await request(service.server)
          .get(`/v1/sites/${id}/versions?limit=3&cursor=${page1.body.meta.next_cursor}`)
          .set(auth)
          .expect(200);
        expect(page2.body.data.map((v: { version: number }) => v.version)).to.deep.equal([1]);
        expect(page2.body.meta.next_cursor).to.equal(null);
      });

      it("shows one version with the site as it was", async () => {
        const shown = await request(service.server)
          .get(`/v1/sites/${id}/versions/2`)
          .set(auth)
          .expect(200);
        expect(shown.body.data.version).to.equal(2);
        expect(shown.body.data.site.personality).to.equal("Cheerful.");
      });
    });

    describe("a site changed once", () => {
      let id: string;
      const restore = (n: number) =>
        request(service.server).post(`/v1/sites/${id}/versions/${n}/restore`).set(auth).expect(200);

      beforeEach(async () => {
        id = await create({ ...base, personality: "First." });
        await patch(id, { personality: "Second." });
      });

      it("restores an old version as a new one", async () => {
        const restored = await restore(1);
        expect(restored.body.data.personality).to.equal("First.");
        expect(restored.body.meta.version).to.equal(3);
      });

      describe("after version 1 is restored as version 3", () => {
        beforeEach(async () => {
          await restore(1);
        });

        it("restoring the current content makes no new version", async () => {
          const again = await restore(3);
          expect(again.body.meta.version).to.equal(3);
        });

        it("the restored version has the content hash of the one it restores", async () => {
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
      });
    });

    describe("a site whose secret changed", () => {
      let id: string;
      const adapter = (value: string) => ({
        type: "rest",
        config: { baseUrl: "https://api.luigis.example", auth: { type: "bearer", value } },
        collections: {},
      });

      beforeEach(async () => {
        id = await create({ ...base, adapter: adapter("tok_first_0123456789aaaa") });
        await patch(id, { adapter: adapter("tok_second_0123456789bbbb") });
      });

      it("shows an old version's secret masked", async () => {
        const shown = await request(service.server)
          .get(`/v1/sites/${id}/versions/1`)
          .set(auth)
          .expect(200);
        expect(shown.body.data.site.adapter.config.auth.value).to.equal("••••aaaa");
      });

      it("restores an old version's sealed secret, masked in the answer", async () => {
        const restored = await request(service.server)
          .post(`/v1/sites/${id}/versions/1/restore`)
          .set(auth)
          .expect(200);
        expect(restored.body.data.adapter.config.auth.value).to.equal("••••aaaa");
        expect(restored.body.meta.version).to.equal(3);
      });
    });

    describe("errors on a site's versions", () => {
      let id: string;

      beforeEach(async () => {
        id = await create(base);
      });

      it("404 not_found for an unknown version", async () => {
        const unknown = await request(service.server)
          .get(`/v1/sites/${id}/versions/9`)
          .set(auth)
          .expect(404);
        expect(unknown.body.error.code).to.equal("not_found");
      });

      it("404 for restoring an unknown version", async () => {
        await request(service.server)
          .post(`/v1/sites/${id}/versions/9/restore`)
          .set(auth)
          .expect(404);
      });

      it("400 for a version number that is not a number", async () => {
        const bad = await request(service.server)
          .get(`/v1/sites/${id}/versions/zero`)
          .set(auth)
          .expect(400);
        expect(bad.body.error.details.field).to.equal("n");
      });

      it("404 for the versions of another workspace's site", async () => {
        const stranger = {
          Authorization: `Bearer ${await service.key(await service.workspace())}`,
        };
        await request(service.server).get(`/v1/sites/${id}/versions`).set(stranger).expect(404);
      });

      it("403 forbidden for a restore with a key without sites:write", async () => {
        const reader = {
          Authorization: `Bearer ${await service.key(await service.workspace(), { scopes: ["sites:read"] })}`,
        };
        const denied = await request(service.server)
          .post(`/v1/sites/${id}/versions/1/restore`)
          .set(reader)
          .expect(403);
        expect(denied.body.error.code).to.equal("forbidden");
      });
    });

    describe("PUT of a YAML file", () => {
      let id: string;
      const put = (body: string) =>
        request(service.server)
          .put(`/v1/sites/${id}`)
          .set(auth)
          .set("Content-Type", "application/yaml")
          .send(body);

      beforeEach(() => {
        id = siteIdOf("luigis-trattoria");
      });

      it("creates the site (201), its secret masked", async () => {
        const created = await put(yamlSite("Warm.")).expect(201);
        expect(created.body.data).to.include({ site_id: id, personality: "Warm." });
        expect(created.body.data.adapter.config.auth.value).to.equal("••••abcd");
      });

      describe("over a site created from it", () => {
        beforeEach(async () => {
          await put(yamlSite("Warm.")).expect(201);
        });

        it("the same file again is 200 and makes no new version", async () => {
          const same = await put(yamlSite("Warm.")).expect(200);
          expect(same.body.meta.version).to.equal(1);
        });

        it("a changed file replaces the site (200) as a new version", async () => {
          const changed = await put(yamlSite("Warm and quick.")).expect(200);
          expect(changed.body.meta.version).to.equal(2);
        });

        it("a field left out of the file is back to its default: PUT replaces the whole site", async () => {
          await request(service.server)
            .patch(`/v1/sites/${id}`)
            .set(auth)
            .send({ voice: "sage" })
            .expect(200);
          const replaced = await put(yamlSite("Warm.")).expect(200);
          expect(replaced.body.data.voice).to.equal("alloy");
        });

        it("a put over a version replaces the site while it is still at that version", async () => {
          const principal = operatorPrincipal(workspaceId, "test");
          const site = parseYaml(yamlSite("Warm and quick.")) as object;
          const put = await service.sites.put(principal, id, site, "yaml", { ifVersion: 1 });
          expect(put).to.include({ changed: true });
          expect(put.site.version).to.equal(2);
        });

        it("a put over a version refuses (409) a site changed since, and changes nothing", async () => {
          await request(service.server)
            .patch(`/v1/sites/${id}`)
            .set(auth)
            .send({ voice: "sage" })
            .expect(200);
          const principal = operatorPrincipal(workspaceId, "test");
          const site = parseYaml(yamlSite("Warm and quick.")) as object;
          const error = await service.sites.put(principal, id, site, "yaml", { ifVersion: 1 }).then(
            () => undefined,
            (e: unknown) => e as { code?: string },
          );
          expect(error?.code).to.equal("conflict");
          expect(await service.sites.get(principal, id)).to.include({ voice: "sage", version: 2 });
        });

        it("versions say where each came from: yaml, or api for a PATCH between", async () => {
          await put(yamlSite("Warm and quick.")).expect(200);
          await request(service.server)
            .patch(`/v1/sites/${id}`)
            .set(auth)
            .send({ voice: "sage" })
            .expect(200);
          await put(yamlSite("Warm and quick.")).expect(200);
          const versions = await request(service.server)
            .get(`/v1/sites/${id}/versions`)
            .set(auth)
            .expect(200);
          expect(versions.body.data.map((v: { source: string }) => v.source)).to.deep.equal([
            "yaml",
            "api",
            "yaml",
            "yaml",
          ]);
        });
      });
    });

    describe("PUT refusals and JSON", () => {
      it("PUT takes JSON too", async () => {
        const jsonId = siteIdOf("json-site");
        const json = await request(service.server)
          .put(`/v1/sites/${jsonId}`)
          .set(auth)
          .send({ ...base, domain: "json.example" })
          .expect(201);
        expect(json.body.data.site_id).to.equal(jsonId);
      });

      it("PUT refuses a site_id that differs from the path", async () => {
        const mismatch = await request(service.server)
          .put(`/v1/sites/${siteIdOf("json-site")}`)
          .set(auth)
          .send({ ...base, site_id: "other-site" })
          .expect(400);
        expect(mismatch.body.error.details.field).to.equal("site_id");
      });

      it("PUT refuses a JSON body that is not an object", async () => {
        const array = await request(service.server)
          .put(`/v1/sites/${siteIdOf("json-site")}`)
          .set(auth)
          .send([1, 2])
          .expect(400);
        expect(array.body.error.details.field).to.equal("body");
      });

      it("PUT refuses bad YAML (a duplicate key) with its line", async () => {
        const dupKey = await request(service.server)
          .put(`/v1/sites/${siteIdOf("yaml-broken")}`)
          .set(auth)
          .set("Content-Type", "application/yaml")
          .send("business_name: A\nbusiness_name: B\n")
          .expect(400);
        expect(dupKey.body.error.code).to.equal("invalid_request");
        expect(dupKey.body.error.details.line).to.equal(2);
      });

      it("PUT refuses YAML that is not a valid site, naming the field", async () => {
        const invalid = await request(service.server)
          .put(`/v1/sites/${siteIdOf("yaml-invalid")}`)
          .set(auth)
          .set("Content-Type", "application/yaml")
          .send("business_name: A\nbusiness_description: B\ndomain: not a host\n")
          .expect(400);
        expect(invalid.body.error.details.field).to.equal("domain");
      });
    });
  });
}
