/**
 * Query parameters never quietly do nothing: a filter a key may not use is 403, a site of another
 * workspace 404, an unknown, repeated or bracketed parameter 400 naming it, and a control
 * character in a value 400, on every route that reads them, on each database (where `%00` in a LIKE
 * pattern would otherwise match every row).
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { newId } from "../core/store/ids.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

for (const target of databaseTargets) {
  describe(`query parameters on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService;
    let workspace: string;
    let all: { Authorization: string };
    let onlyA: { Authorization: string };
    let stranger: { Authorization: string };

    const site = (siteId: string) => ({
      site_id: siteId,
      business_name: siteId,
      business_description: "",
      domain: `${siteId}.example`,
    });
    const lead = async (siteId: string, workspaceId: string) => {
      const at = Date.now();
      await service.store.leads.insertOnce({
        id: newId("lead"),
        site_id: siteId,
        workspace_id: workspaceId,
        session_id: null,
        user_fingerprint: null,
        name: "Ana",
        email: "ana@example.com",
        phone: null,
        message: null,
        page_url: null,
        fields: null,
        status: "new",
        notes: null,
        update_token_hash: "0".repeat(64),
        replay_key: crypto.randomBytes(32).toString("hex"),
        created_at: at,
        updated_at: at,
      });
    };
    const get = (path: string, auth: { Authorization: string }) =>
      request(service.server).get(path).set(auth);
    const refused = (res: request.Response, status: number, field?: string) => {
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      expect(res.body.success).to.equal(false);
      if (field !== undefined) expect(res.body.error.details.field).to.equal(field);
    };

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url);
      workspace = await service.workspace();
      for (const id of ["params-a", "params-b"]) {
        await service.sites.create(operatorPrincipal(workspace, "test"), site(id));
        await lead(id, workspace);
      }
      const other = await service.workspace();
      await service.sites.create(operatorPrincipal(other, "test"), site("params-other"));
      await lead("params-other", other);
      all = { Authorization: `Bearer ${await service.key(workspace)}` };
      onlyA = {
        Authorization: `Bearer ${await service.key(workspace, { siteIds: ["params-a"] })}`,
      };
      stranger = { Authorization: `Bearer ${await service.key(other)}` };
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("GET /v1/leads?site_id= a site the key is not limited to is 403", async () => {
      refused(await get("/v1/leads?site_id=params-b", onlyA), 403);
    });

    it("GET /v1/leads?site_id= the key's own site lists its leads", async () => {
      const res = await get("/v1/leads?site_id=params-a", onlyA).expect(200);
      expect(res.body.data.map((l: { site_id: string }) => l.site_id)).to.deep.equal(["params-a"]);
    });

    it("GET /v1/leads?site_id= checks access alone, without opening the site's secrets", async () => {
      const ws = await service.workspace();
      await service.sites.create(operatorPrincipal(ws, "test"), site("params-sealed"));
      await lead("params-sealed", ws);
      // A secret sealed under a key this service does not hold: reading the config would fail.
      const row = (await service.store.sites.get("params-sealed"))!;
      const auth = { type: "bearer", value: "enc:v1:00000000:AAAA:AAAA:AAAA" };
      const adapter = { type: "rest", config: { auth }, collections: {} };
      const config = JSON.stringify({ ...JSON.parse(row.config), adapter });
      await service.store.sites.reseal("params-sealed", { config, content_hash: row.content_hash });
      await service.sites.cache.changed("params-sealed");
      const key = { Authorization: `Bearer ${await service.key(ws)}` };
      const res = await get("/v1/leads?site_id=params-sealed", key).expect(200);
      expect(res.body.data.map((l: { site_id: string }) => l.site_id)).to.deep.equal([
        "params-sealed",
      ]);
    });

    it("GET /v1/leads?site_id= another workspace's site is 404, never an empty list", async () => {
      refused(await get("/v1/leads?site_id=params-other", all), 404);
    });

    it("GET /v1/leads?site_id= a site of the key's workspace is 404 to another workspace's key", async () => {
      refused(await get("/v1/leads?site_id=params-a", stranger), 404);
    });

    it("GET /v1/leads?site_id[]=x is 400 naming the parameter, not an unfiltered list", async () => {
      refused(await get("/v1/leads?site_id[]=params-a", all), 400, "site_id[]");
    });

    it("a repeated parameter is 400", async () => {
      refused(await get("/v1/leads?site_id=params-a&site_id=params-b", all), 400, "site_id");
    });

    it("GET /v1/sites?q=%00 is 400, never every site", async () => {
      refused(await get("/v1/sites?q=%00", all), 400, "q");
    });

    it("GET /v1/leads?status= with a control character is 400 naming it", async () => {
      refused(await get("/v1/leads?status=new%0A", all), 400, "status");
    });

    it("an unknown parameter is 400 naming it and the ones the route takes", async () => {
      const res = await get("/v1/sites?limt=5", all);
      refused(res, 400, "limt");
      expect(res.body.error.message).to.include("limit");
    });

    for (const [path, field] of [
      ["/v1/sites/params-a/versions?before=3", "before"],
      ["/v1/sites/params-a?fields=name", "fields"],
    ]) {
      it(`an unknown parameter is 400 naming it: ${path}`, async () => {
        refused(await get(path!, all), 400, field);
      });
    }

    it("the parameters a route takes still work", async () => {
      const res = await get("/v1/sites?q=params-&limit=1", all).expect(200);
      expect(res.body.data).to.have.length(1);
      expect(res.body.meta.next_cursor).to.be.a("string");
    });
  });
}
