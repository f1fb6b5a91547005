/**
 * The webhooks API over real HTTP, on each of the three databases: creating an endpoint (its
 * secret shown once, masked after, sealed in the store), reading, listing, patching, deleting,
 * rotating the secret, enabling and disabling, the limit of 20, and who may see what (401, 403,
 * another workspace's endpoints as 404, keys limited to some sites). Bad input is
 * webhooks-api-input.test.ts. Every test works in a workspace of its own, with a key of its own.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal, type Scope } from "../core/auth/principal.ts";
import { open } from "../core/security/secret-box.ts";
import {
  endpointRow,
  type WebhookEndpointRow,
} from "../core/store/repos/webhook-endpoints-repo.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** A secret as the service makes them: whsec_ and the base64 of 32 random bytes. */
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * An endpoint's body. Its host is a public IP literal, which the outbound policy judges without
 * asking DNS: a name would be resolved at every create, and this machine's resolver may take
 * seconds to say it does not know one.
 */
const CRM = "https://93.184.216.34";
const hook = (fields: Record<string, unknown> = {}) => ({
  url: `${CRM}/hooks/sitevoice`,
  events: ["lead.captured", "conversation.ended"],
  ...fields,
});

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  site_ids: string[] | null;
  enabled: boolean;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  secret: string;
}

for (const target of databaseTargets) {
  describe(`webhooks API on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService;
    /** This test's workspace and a key of it with every scope. */
    let workspace: string;
    let key: string;
    const auth = () => ({ Authorization: `Bearer ${key}` });
    const api = () => request(service.server);
    /** POST /v1/webhooks, expecting 201; the endpoint created, its secret in clear. */
    const create = async (body: object, as = auth()): Promise<Endpoint> =>
      (await api().post("/v1/webhooks").set(as).send(body).expect(201)).body.data;
    /** The stored row, as the store reads it. */
    const stored = async (id: string): Promise<WebhookEndpointRow | undefined> => {
      const raw = await service.store.db
        .knex<WebhookEndpointRow>("webhook_endpoints")
        .where({ id })
        .first();
      return raw === undefined ? undefined : endpointRow(raw);
    };
    /** A new site of `ws` (this test's workspace unless given); its id. */
    const site = async (ws = workspace) => {
      const siteId = `hook-site-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(ws, "test"), {
        site_id: siteId,
        business_name: "Hook Test",
        business_description: "",
        domain: `${siteId}.example`,
      });
      return siteId;
    };
    /** A key of this test's workspace with these scopes or limited to these sites. */
    const keyWith = async (options: { scopes?: Scope[]; siteIds?: string[] }) => ({
      Authorization: `Bearer ${await service.key(workspace, options)}`,
    });

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url);
    });
    beforeEach(async () => {
      workspace = await service.workspace();
      key = await service.key(workspace);
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    describe("creating an endpoint", () => {
      let res: request.Response;
      let made: Endpoint;
      let startedAt: number;
      let endedAt: number;

      beforeEach(async () => {
        startedAt = Date.now();
        res = await api().post("/v1/webhooks").set(auth()).send(hook()).expect(201);
        endedAt = Date.now();
        made = res.body.data;
      });

      it("answers 201 with every field, in order, in the envelope", () => {
        expect(res.body.success).to.equal(true);
        expect(res.headers["x-request-id"]).to.equal(res.body.meta.request_id);
        expect(Object.keys(made)).to.deep.equal([
          "id",
          "url",
          "events",
          "description",
          "site_ids",
          "enabled",
          "created_at",
          "updated_at",
          "disabled_at",
          "disabled_reason",
          "secret",
        ]);
        expect(made.id).to.match(/^wh_[0-9a-z]{26}$/);
        const { id: _id, secret: _secret, created_at, updated_at, ...rest } = made;
        expect(rest).to.deep.equal({
          url: `${CRM}/hooks/sitevoice`,
          events: ["lead.captured", "conversation.ended"],
          description: null,
          site_ids: null,
          enabled: true,
          disabled_at: null,
          disabled_reason: null,
        });
        expect(created_at).to.match(ISO_TIME);
        expect(updated_at).to.equal(created_at);
        expect(Date.parse(created_at)).to.be.within(startedAt, endedAt);
      });

      it("shows the new secret in clear, this once", () => {
        expect(made.secret).to.match(SECRET);
      });

      it("masks the secret on every later read: •••• and its last 4 characters", async () => {
        const read = await api().get(`/v1/webhooks/${made.id}`).set(auth()).expect(200);
        expect(read.body.data).to.deep.equal({ ...made, secret: `••••${made.secret.slice(-4)}` });
        const listed = await api().get("/v1/webhooks").set(auth()).expect(200);
        expect(listed.body.data).to.deep.equal([read.body.data]);
      });

      it("keeps the secret sealed in the store, under the master key", async () => {
        const row = (await stored(made.id))!;
        expect(JSON.stringify(row)).not.to.include("whsec_");
        expect(row.secret).to.match(/^enc:v1:[0-9a-f]{8}:/);
        expect(open(service.ring, row.secret)).to.equal(made.secret);
        expect(row).to.deep.include({
          workspace_id: workspace,
          previous_secret: null,
          previous_secret_until: null,
          consecutive_failures: 0,
          enabled: true,
        });
      });

      it("gives every endpoint a secret of its own", async () => {
        const other = await create(hook());
        expect(other.secret).to.match(SECRET);
        expect(other.secret).not.to.equal(made.secret);
      });
    });

    it("creates an endpoint with a description and limited to sites of the workspace", async () => {
      const [a, b] = [await site(), await site()];
      const made = await create(
        hook({ description: "Front desk CRM", site_ids: [b, a], events: ["session.ended"] }),
      );
      expect(made).to.deep.include({
        description: "Front desk CRM",
        site_ids: [b, a],
        events: ["session.ended"],
      });
      expect((await stored(made.id))?.site_ids).to.equal(JSON.stringify([b, a]));
    });

    describe("an endpoint", () => {
      let made: Endpoint;

      beforeEach(async () => {
        made = await create(hook({ description: "CRM" }));
      });

      it("patches the fields given and keeps the others, answering what a read answers", async () => {
        const siteId = await site();
        const patched = await api()
          .patch(`/v1/webhooks/${made.id}`)
          .set(auth())
          .send({ events: ["lead.updated"], site_ids: [siteId] })
          .expect(200);
        expect(patched.body.data).to.deep.include({
          url: made.url,
          events: ["lead.updated"],
          description: "CRM",
          site_ids: [siteId],
          enabled: true,
        });
        const read = await api().get(`/v1/webhooks/${made.id}`).set(auth()).expect(200);
        expect(read.body.data).to.deep.equal(patched.body.data);
        expect(Date.parse(read.body.data.updated_at)).to.be.at.least(Date.parse(made.created_at));
      });

      it("keeps the secret when the URL changes", async () => {
        const patched = await api()
          .patch(`/v1/webhooks/${made.id}`)
          .set(auth())
          .send({ url: `${CRM}/hooks/v2` })
          .expect(200);
        expect(patched.body.data.url).to.equal(`${CRM}/hooks/v2`);
        expect(patched.body.data.secret).to.equal(`••••${made.secret.slice(-4)}`);
        expect(open(service.ring, (await stored(made.id))!.secret)).to.equal(made.secret);
      });

      it("clears the description and the site limit with null", async () => {
        await api()
          .patch(`/v1/webhooks/${made.id}`)
          .set(auth())
          .send({ site_ids: [await site()] })
          .expect(200);
        const cleared = await api()
          .patch(`/v1/webhooks/${made.id}`)
          .set(auth())
          .send({ description: null, site_ids: null })
          .expect(200);
        expect(cleared.body.data).to.deep.include({ description: null, site_ids: null });
        expect(await stored(made.id)).to.deep.include({ description: null, site_ids: null });
      });

      it("deletes it with its deliveries and their attempts; a read after is 404", async () => {
        const knex = service.store.db.knex;
        const at = Date.now();
        await knex("webhook_deliveries").insert({
          id: "dlv_for_delete_test",
          endpoint_id: made.id,
          event_id: "evt_for_delete_test",
          event_type: "lead.captured",
          site_key: "",
          status: "failed",
          attempts: 1,
          created_at: at,
        });
        await knex("webhook_attempts").insert({
          id: "att_for_delete_test",
          delivery_id: "dlv_for_delete_test",
          attempt: 1,
          attempted_at: at,
          latency_ms: 12,
          status_code: 500,
        });
        const deleted = await api().delete(`/v1/webhooks/${made.id}`).set(auth()).expect(200);
        expect(deleted.body.data).to.deep.equal({ id: made.id, deleted: true });
        expect(await stored(made.id)).to.equal(undefined);
        expect(await knex("webhook_deliveries").where({ endpoint_id: made.id })).to.deep.equal([]);
        expect(await knex("webhook_attempts").where({ id: "att_for_delete_test" })).to.deep.equal(
          [],
        );
        const gone = await api().get(`/v1/webhooks/${made.id}`).set(auth()).expect(404);
        expect(gone.body.error.code).to.equal("not_found");
        const again = await api().delete(`/v1/webhooks/${made.id}`).set(auth()).expect(404);
        expect(again.body.error.details).to.deep.equal({ id: made.id });
      });

      it("404 not_found for an unknown id on every route", async () => {
        const id = "wh_00000000000000000000000000";
        const answers = [
          await api().get(`/v1/webhooks/${id}`).set(auth()),
          await api().patch(`/v1/webhooks/${id}`).set(auth()).send({ enabled: false }),
          await api().delete(`/v1/webhooks/${id}`).set(auth()),
          await api().post(`/v1/webhooks/${id}/rotate-secret`).set(auth()),
        ];
        expect(answers.map((r) => [r.status, r.body.error?.code])).to.deep.equal(
          Array(4).fill([404, "not_found"]),
        );
        expect(answers[0]?.body.error.message).to.equal(`Webhook endpoint '${id}' not found`);
      });
    });

    describe("rotating the secret", () => {
      let made: Endpoint;

      beforeEach(async () => {
        made = await create(hook());
      });

      const rotate = async () => {
        const before = Date.now();
        const res = await api()
          .post(`/v1/webhooks/${made.id}/rotate-secret`)
          .set(auth())
          .expect(200);
        return { secret: res.body.data.secret as string, body: res.body.data, before };
      };

      it("answers the new secret in clear, alone, and masks it on later reads", async () => {
        const { secret, body } = await rotate();
        expect(body).to.deep.equal({ secret });
        expect(secret).to.match(SECRET);
        expect(secret).not.to.equal(made.secret);
        const read = await api().get(`/v1/webhooks/${made.id}`).set(auth()).expect(200);
        expect(read.body.data.secret).to.equal(`••••${secret.slice(-4)}`);
      });

      it("keeps the old secret sealed as the previous one, signing for 24 hours", async () => {
        const { secret, before } = await rotate();
        const row = (await stored(made.id))!;
        expect(JSON.stringify(row)).not.to.include("whsec_");
        expect(row.previous_secret).to.match(/^enc:v1:[0-9a-f]{8}:/);
        expect(open(service.ring, row.secret)).to.equal(secret);
        expect(open(service.ring, row.previous_secret!)).to.equal(made.secret);
        expect(row.previous_secret_until).to.equal(row.updated_at + DAY_MS);
        expect(row.updated_at).to.be.within(before, Date.now());
      });

      it("is not undone by a re-seal (secrets rotate) that read the secrets before it", async () => {
        const read = await stored(made.id);
        const { secret } = await rotate();
        const resealed = await service.store.webhookEndpoints.reseal(
          made.id,
          { secret: read!.secret, previous_secret: read!.previous_secret },
          { secret: "enc:v1:stale", previous_secret: null },
        );
        expect(resealed).to.equal(false);
        const row = (await stored(made.id))!;
        expect(open(service.ring, row.secret)).to.equal(secret);
        expect(open(service.ring, row.previous_secret!)).to.equal(made.secret);
      });

      it("drops the oldest secret on a second rotation within the day", async () => {
        const first = await rotate();
        const second = await rotate();
        const row = (await stored(made.id))!;
        expect(open(service.ring, row.secret)).to.equal(second.secret);
        expect(open(service.ring, row.previous_secret!)).to.equal(first.secret);
        expect(row.previous_secret_until).to.equal(row.updated_at + DAY_MS);
        expect(row.updated_at).to.be.at.least(second.before);
      });
    });

    describe("disabling and enabling", () => {
      let made: Endpoint;
      const patch = (body: object) =>
        api().patch(`/v1/webhooks/${made.id}`).set(auth()).send(body).expect(200);

      beforeEach(async () => {
        made = await create(hook());
      });

      it("disables it with enabled: false, saying when and why", async () => {
        const before = Date.now();
        const res = await patch({ enabled: false });
        expect(res.body.data).to.deep.include({
          enabled: false,
          disabled_reason: "disabled by the API",
        });
        expect(Date.parse(res.body.data.disabled_at)).to.be.within(before, Date.now());
        expect(res.body.data.updated_at).to.equal(res.body.data.disabled_at);
      });

      it("keeps when and why an endpoint already disabled was disabled", async () => {
        await service.store.webhookEndpoints.update(made.id, {
          enabled: false,
          disabled_at: 1_700_000_000_000,
          disabled_reason: "failing for 3 days",
          updated_at: 1_700_000_000_000,
        });
        const res = await patch({ enabled: false });
        expect(res.body.data).to.deep.include({
          enabled: false,
          disabled_at: "2023-11-14T22:13:20.000Z",
          disabled_reason: "failing for 3 days",
        });
      });

      it("re-enables a disabled endpoint with enabled: true, its failure state reset", async () => {
        await service.store.webhookEndpoints.update(made.id, {
          enabled: false,
          consecutive_failures: 17,
          failing_since: 1_700_000_000_000,
          disabled_at: 1_700_000_500_000,
          disabled_reason: "failing for 3 days",
          paused_until: 1_700_000_600_000,
          updated_at: 1_700_000_500_000,
        });
        const res = await patch({ enabled: true });
        expect(res.body.data).to.deep.include({
          enabled: true,
          disabled_at: null,
          disabled_reason: null,
        });
        expect(await stored(made.id)).to.deep.include({
          enabled: true,
          consecutive_failures: 0,
          failing_since: null,
          disabled_at: null,
          disabled_reason: null,
          paused_until: null,
        });
      });

      it("leaves the failure count of an endpoint that is enabled alone", async () => {
        await service.store.webhookEndpoints.update(made.id, {
          consecutive_failures: 3,
          failing_since: 1_700_000_000_000,
          updated_at: 1_700_000_000_000,
        });
        await patch({ enabled: true });
        expect(await stored(made.id)).to.deep.include({
          enabled: true,
          consecutive_failures: 3,
          failing_since: 1_700_000_000_000,
        });
      });
    });

    describe("listing", () => {
      const descriptions = (res: request.Response) =>
        res.body.data.map((e: Endpoint) => e.description);

      beforeEach(async () => {
        for (const n of ["one", "two", "three"]) await create(hook({ description: n }));
      });

      it("lists newest first, paged by limit and cursor", async () => {
        const first = await api().get("/v1/webhooks?limit=2").set(auth()).expect(200);
        expect(descriptions(first)).to.deep.equal(["three", "two"]);
        expect(first.body.meta.next_cursor).to.be.a("string");
        const second = await api()
          .get(`/v1/webhooks?limit=2&cursor=${first.body.meta.next_cursor}`)
          .set(auth())
          .expect(200);
        expect(descriptions(second)).to.deep.equal(["one"]);
        expect(second.body.meta.next_cursor).to.equal(null);
      });

      it("lists 50 at most unless asked, with every secret masked", async () => {
        const all = await api().get("/v1/webhooks").set(auth()).expect(200);
        expect(descriptions(all)).to.deep.equal(["three", "two", "one"]);
        expect(all.body.meta.next_cursor).to.equal(null);
        expect(all.body.data.map((e: Endpoint) => e.secret.slice(0, 4))).to.deep.equal(
          Array(3).fill("••••"),
        );
      });

      it("lists only this workspace's endpoints", async () => {
        const other = await service.workspace();
        await create(hook({ description: "elsewhere" }), {
          Authorization: `Bearer ${await service.key(other)}`,
        });
        const all = await api().get("/v1/webhooks").set(auth()).expect(200);
        expect(descriptions(all)).to.deep.equal(["three", "two", "one"]);
      });
    });

    describe("at most 20 endpoints per workspace", () => {
      beforeEach(async () => {
        for (let n = 1; n <= 20; n++) await create(hook({ description: `#${n}` }));
      });

      it("refuses the 21st with 422 validation_failed, saying the limit", async () => {
        const res = await api().post("/v1/webhooks").set(auth()).send(hook()).expect(422);
        expect(res.body.error).to.deep.equal({
          code: "validation_failed",
          message:
            "A workspace may have at most 20 webhook endpoints; delete one (or add its events " +
            "to another) first",
          details: { reason: "endpoint_limit", limit: 20 },
        });
        expect(await service.store.webhookEndpoints.countOfWorkspace(workspace)).to.equal(20);
      });

      it("takes a new one once one is deleted, and counts per workspace", async () => {
        const [newest] = (await api().get("/v1/webhooks?limit=1").set(auth()).expect(200)).body
          .data;
        await api().delete(`/v1/webhooks/${newest.id}`).set(auth()).expect(200);
        await create(hook());
        await api().post("/v1/webhooks").set(auth()).send(hook()).expect(422);
        const other = await service.workspace();
        await create(hook(), { Authorization: `Bearer ${await service.key(other)}` });
      });
    });

    describe("authentication and scope", () => {
      const routes = (id: string) =>
        [
          ["GET", "/v1/webhooks", undefined],
          ["POST", "/v1/webhooks", hook()],
          ["GET", `/v1/webhooks/${id}`, undefined],
          ["PATCH", `/v1/webhooks/${id}`, { enabled: false }],
          ["DELETE", `/v1/webhooks/${id}`, undefined],
          ["POST", `/v1/webhooks/${id}/rotate-secret`, undefined],
        ] as const;
      const call = (method: string, path: string, body: object | undefined) => {
        const req = api()[method.toLowerCase() as "get" | "post" | "patch" | "delete"](path);
        return body === undefined ? req : req.send(body);
      };
      let made: Endpoint;

      beforeEach(async () => {
        made = await create(hook());
      });

      it("401 unauthorized on every route without a key", async () => {
        for (const [method, path, body] of routes(made.id)) {
          const res = await call(method, path, body);
          expect([method, path, res.status, res.body.error?.code]).to.deep.equal([
            method,
            path,
            401,
            "unauthorized",
          ]);
        }
      });

      it("403 forbidden on every route for a key without webhooks:write, naming the scope", async () => {
        const reader = await keyWith({ scopes: ["sites:read", "sites:write", "analytics:read"] });
        for (const [method, path, body] of routes(made.id)) {
          const res = await call(method, path, body).set(reader);
          expect([method, path, res.status, res.body.error?.details]).to.deep.equal([
            method,
            path,
            403,
            { required_scope: "webhooks:write" },
          ]);
        }
        expect((await stored(made.id))?.enabled).to.equal(true);
      });

      it("404 not_found on every route for another workspace's endpoint, which stays as it was", async () => {
        const other = await service.workspace();
        const otherAuth = { Authorization: `Bearer ${await service.key(other)}` };
        const before = await stored(made.id);
        for (const [method, path, body] of routes(made.id).slice(2)) {
          const res = await call(method, path, body).set(otherAuth);
          expect([method, path, res.status, res.body.error?.code]).to.deep.equal([
            method,
            path,
            404,
            "not_found",
          ]);
        }
        expect(await stored(made.id)).to.deep.equal(before);
        const listed = await api().get("/v1/webhooks").set(otherAuth).expect(200);
        expect(listed.body.data).to.deep.equal([]);
      });
    });

    describe("a key limited to some sites", () => {
      let mine: string;
      let theirs: string;
      let limited: { Authorization: string };

      beforeEach(async () => {
        mine = await site();
        theirs = await site();
        limited = await keyWith({ siteIds: [mine] });
      });

      it("creates an endpoint limited to its sites", async () => {
        const made = await create(hook({ site_ids: [mine] }), limited);
        expect(made.site_ids).to.deep.equal([mine]);
      });

      it("403 forbidden for an endpoint of every site", async () => {
        const res = await api().post("/v1/webhooks").set(limited).send(hook()).expect(403);
        expect(res.body.error.code).to.equal("forbidden");
        expect(res.body.error.details).to.deep.equal({ field: "site_ids" });
        const explicit = await api()
          .post("/v1/webhooks")
          .set(limited)
          .send(hook({ site_ids: null }))
          .expect(403);
        expect(explicit.body.error.details).to.deep.equal({ field: "site_ids" });
      });

      it("403 forbidden for an endpoint of another site, naming it", async () => {
        const res = await api()
          .post("/v1/webhooks")
          .set(limited)
          .send(hook({ site_ids: [mine, theirs] }))
          .expect(403);
        expect(res.body.error).to.deep.include({
          code: "forbidden",
          message: "This API key is limited to other sites",
        });
        expect(res.body.error.details).to.deep.equal({ field: "site_ids", site_id: theirs });
        expect(await service.store.webhookEndpoints.countOfWorkspace(workspace)).to.equal(0);
      });

      describe("among the workspace's endpoints", () => {
        let own: Endpoint;
        let others: Record<string, Endpoint>;

        beforeEach(async () => {
          own = await create(hook({ description: "own", site_ids: [mine] }));
          others = {
            "every site": await create(hook({ description: "all" })),
            "its site and another": await create(hook({ site_ids: [mine, theirs] })),
            "another site": await create(hook({ site_ids: [theirs] })),
          };
        });

        it("lists only the endpoints limited to its sites", async () => {
          const listed = await api().get("/v1/webhooks").set(limited).expect(200);
          expect(listed.body.data.map((e: Endpoint) => e.id)).to.deep.equal([own.id]);
        });

        it("pages over the endpoints it may not see", async () => {
          const newer = await create(hook({ description: "own 2", site_ids: [mine] }));
          await create(hook({ description: "all 2" }));
          const first = await api().get("/v1/webhooks?limit=1").set(limited).expect(200);
          expect(first.body.data.map((e: Endpoint) => e.id)).to.deep.equal([newer.id]);
          const second = await api()
            .get(`/v1/webhooks?limit=1&cursor=${first.body.meta.next_cursor}`)
            .set(limited)
            .expect(200);
          expect(second.body.data.map((e: Endpoint) => e.id)).to.deep.equal([own.id]);
          expect(second.body.meta.next_cursor).to.equal(null);
        });

        for (const which of ["every site", "its site and another", "another site"]) {
          it(`404 not_found on every route for an endpoint of ${which}`, async () => {
            const id = others[which]!.id;
            const before = await stored(id);
            const answers = [
              await api().get(`/v1/webhooks/${id}`).set(limited),
              await api()
                .patch(`/v1/webhooks/${id}`)
                .set(limited)
                .send({ site_ids: [mine] }),
              await api().post(`/v1/webhooks/${id}/rotate-secret`).set(limited),
              await api().delete(`/v1/webhooks/${id}`).set(limited),
            ];
            expect(answers.map((r) => [r.status, r.body.error?.code])).to.deep.equal(
              Array(4).fill([404, "not_found"]),
            );
            expect(await stored(id)).to.deep.equal(before);
          });
        }

        it("patches, rotates and deletes its own", async () => {
          await api()
            .patch(`/v1/webhooks/${own.id}`)
            .set(limited)
            .send({ events: ["lead.updated"] })
            .expect(200);
          await api().post(`/v1/webhooks/${own.id}/rotate-secret`).set(limited).expect(200);
          await api().delete(`/v1/webhooks/${own.id}`).set(limited).expect(200);
        });

        it("403 forbidden for a patch widening its own to every site or another site", async () => {
          for (const siteIds of [null, [theirs], [mine, theirs]]) {
            const res = await api()
              .patch(`/v1/webhooks/${own.id}`)
              .set(limited)
              .send({ site_ids: siteIds })
              .expect(403);
            expect(res.body.error.details.field).to.equal("site_ids");
          }
          expect((await stored(own.id))?.site_ids).to.equal(JSON.stringify([mine]));
        });
      });
    });
  });
}
