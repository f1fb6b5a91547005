/**
 * What the webhooks API refuses, over real HTTP on each of the three databases, each with its
 * status, code and `details.field`: bodies against the schemas and the URL rules, sites that are
 * not the workspace's, destinations the outbound policy refuses (with private networks allowed
 * and without), bodies over 1 MiB, malformed JSON and YAML. Every refusal stores nothing.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { SUBSCRIBABLE_EVENT_TYPES } from "../core/webhooks/event-types.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

/** A public IP literal: judged by the outbound policy without asking DNS. */
const CRM = "https://93.184.216.34";
const hook = (fields: Record<string, unknown> = {}) => ({
  url: `${CRM}/hooks/sitevoice`,
  events: ["lead.captured"],
  ...fields,
});

const NOT_HTTPS =
  "url must use https:// (plain http:// only to localhost, 127.0.0.1 or [::1], and only when " +
  "the service allows private networks)";
const ALLOW_HINT =
  "private networks are not allowed (the operator can allow this host with " +
  "SITEVOICE_OUTBOUND_ALLOW)";

for (const target of databaseTargets) {
  describe(`webhooks API input on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    /** The default: public destinations only, and 10.0.0.5:443 allowed by the operator. */
    let strict: TestService;
    /** SITEVOICE_ALLOW_PRIVATE_NETWORKS on, as for local development. */
    let open: TestService;
    let workspace: string;
    /** A key of this test's workspace; the two services share the store, so it serves both. */
    let auth: { Authorization: string };

    /** POST /v1/webhooks on `service` (the strict one unless given). */
    const post = (body: unknown, service = strict, as = auth) =>
      request(service.server)
        .post("/v1/webhooks")
        .set(as)
        .send(body as object);
    /** Expects a refusal with this status, code and `details.field`; the error. */
    const refused = (
      res: request.Response,
      status: number,
      code: string,
      field: string | undefined,
    ) => {
      expect(
        [res.status, res.body.error?.code, res.body.error?.details?.field],
        JSON.stringify(res.body),
      ).to.deep.equal([status, code, field]);
      expect(res.body.success).to.equal(false);
      expect(res.headers["x-request-id"]).to.equal(res.body.meta.request_id);
      return res.body.error as { message: string; details: Record<string, unknown> };
    };
    const count = () => strict.store.webhookEndpoints.countOfWorkspace(workspace);

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      strict = await startTestService(database.url, { SITEVOICE_OUTBOUND_ALLOW: "10.0.0.5:443" });
      open = await startTestService(database.url, { SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true" });
    });
    beforeEach(async () => {
      workspace = await strict.workspace();
      auth = { Authorization: `Bearer ${await strict.key(workspace)}` };
    });
    after(async () => {
      await open?.stop();
      await strict?.stop();
      await database?.drop();
    });

    describe("the body", () => {
      for (const [what, body, field] of [
        ["no url", { events: ["lead.captured"] }, "url"],
        ["no events", { url: `${CRM}/in` }, "events"],
        ["a url that is not text", hook({ url: 5 }), "url"],
        ["a url of another scheme", hook({ url: "ftp://93.184.216.34/in" }), "url"],
        ["a relative url", hook({ url: "/hooks/sitevoice" }), "url"],
        ["a url over 2048 characters", hook({ url: `${CRM}/${"a".repeat(2048)}` }), "url"],
        ["events that are not a list", hook({ events: "lead.captured" }), "events"],
        ["no event", hook({ events: [] }), "events"],
        ["an event named twice", hook({ events: ["lead.captured", "lead.captured"] }), "events"],
        ["an event that is not text", hook({ events: [5] }), "events.0"],
        [
          "a description over 500 characters",
          hook({ description: "d".repeat(501) }),
          "description",
        ],
        ["a description that is not text", hook({ description: 5 }), "description"],
        ["an empty site list", hook({ site_ids: [] }), "site_ids"],
        ["a site id of the wrong shape", hook({ site_ids: ["Not A Site"] }), "site_ids.0"],
        ["a site named twice", hook({ site_ids: ["abc-site", "abc-site"] }), "site_ids"],
        [
          "more than 100 sites",
          hook({ site_ids: Array.from({ length: 101 }, (_, i) => `site-${i}`) }),
          "site_ids",
        ],
        ["a secret of its own", hook({ secret: "whsec_mine" }), "secret"],
        ["enabled, which only a patch takes", hook({ enabled: false }), "enabled"],
        ["an unknown field", hook({ colour: "red" }), "colour"],
        ["a list for a body", [hook()], "body"],
      ] as const) {
        it(`400 invalid_request for ${what}, storing nothing`, async () => {
          refused(await post(body), 400, "invalid_request", field);
          expect(await count()).to.equal(0);
        });
      }

      it("400 naming an event type that is not one, with its value", async () => {
        const error = refused(
          await post(hook({ events: ["lead.captured", "lead.created"] })),
          400,
          "invalid_request",
          "events.1",
        );
        expect(error.message).to.equal(
          'events.1 is "lead.created", which is not an event type a webhook can subscribe to ' +
            `(${SUBSCRIBABLE_EVENT_TYPES.join(", ")})`,
        );
        expect(error.details.value).to.equal("lead.created");
      });

      it("400 for webhook.test, which no endpoint subscribes to", async () => {
        const error = refused(
          await post(hook({ events: ["webhook.test"] })),
          400,
          "invalid_request",
          "events.0",
        );
        expect(error.details.value).to.equal("webhook.test");
      });

      it("400 for more than 20 events", async () => {
        const events = [...SUBSCRIBABLE_EVENT_TYPES, ...SUBSCRIBABLE_EVENT_TYPES, "lead.captured"];
        const error = refused(await post(hook({ events })), 400, "invalid_request", "events");
        expect(error.details.errors).to.deep.include({
          field: "events",
          message: "events must have at most 20 items",
          code: "invalid_request",
        });
      });

      it("lists every problem at once", async () => {
        const error = refused(
          await post({ url: "http://crm.example/in", events: [], colour: 1 }),
          400,
          "invalid_request",
          "colour",
        );
        expect((error.details.errors as { field: string }[]).map((e) => e.field)).to.deep.equal([
          "colour",
          "events",
          "url",
        ]);
      });

      it("accepts every subscribable event type at once", async () => {
        const res = await post(hook({ events: SUBSCRIBABLE_EVENT_TYPES })).expect(201);
        expect(res.body.data.events).to.deep.equal(SUBSCRIBABLE_EVENT_TYPES);
      });
    });

    describe("the url's form", () => {
      for (const [url, message] of [
        ["http://93.184.216.34/in", NOT_HTTPS],
        ["http://localhost:9000/in", NOT_HTTPS],
        ["http://127.0.0.1:9000/in", NOT_HTTPS],
        [
          "https://user:secret@93.184.216.34/in",
          "url must not hold a user name or password (user:password@); deliveries are signed instead",
        ],
        ["https://93.184.216.34/in#section", "url must not have a #fragment"],
        ["https://93.184.216.34/a b", "url must not hold spaces or control characters"],
        ["https://", "url must be an absolute URL such as https://example.com/hooks/sitevoice"],
      ] as const) {
        it(`400 invalid_request for ${url}, storing nothing`, async () => {
          const error = refused(await post(hook({ url })), 400, "invalid_request", "url");
          expect(error.message).to.equal(message);
          expect(await count()).to.equal(0);
        });
      }

      it("400 for plain http to another host even with private networks allowed", async () => {
        const res = await post(hook({ url: "http://10.0.0.5/in" }), open);
        expect(refused(res, 400, "invalid_request", "url").message).to.equal(NOT_HTTPS);
      });

      for (const url of [
        "http://localhost:9000/in",
        "http://127.0.0.1:9000/in",
        "http://[::1]:9000/in",
      ]) {
        it(`accepts ${url} with private networks allowed`, async () => {
          const res = await post(hook({ url }), open).expect(201);
          expect(res.body.data.url).to.equal(url);
        });
      }
    });

    describe("where the url leads (the outbound policy at save)", () => {
      for (const [url, message] of [
        [
          "https://10.0.0.6/in",
          `10.0.0.6 refused: 10.0.0.6 is a private address, and ${ALLOW_HINT}`,
        ],
        [
          "https://127.0.0.1/in",
          `127.0.0.1 refused: 127.0.0.1 is a loopback address, and ${ALLOW_HINT}`,
        ],
        ["https://[::1]/in", `[::1] refused: ::1 is a loopback address, and ${ALLOW_HINT}`],
        [
          "https://169.254.10.10/in",
          `169.254.10.10 refused: 169.254.10.10 is a link-local address, and ${ALLOW_HINT}`,
        ],
        [
          "https://0x7f.1/in",
          `127.0.0.1 refused: 127.0.0.1 is a loopback address, and ${ALLOW_HINT}`,
        ],
        [
          "https://localhost/in",
          `localhost refused: it resolves to a loopback address, and ${ALLOW_HINT}`,
        ],
        [
          "https://10.0.0.5:8443/in",
          `10.0.0.5 refused: 10.0.0.5 is a private address, and ${ALLOW_HINT}`,
        ],
      ] as const) {
        it(`422 validation_failed for ${url}, storing nothing`, async () => {
          const error = refused(await post(hook({ url })), 422, "validation_failed", "url");
          expect(error.message).to.equal(`url is not allowed: outbound request to ${message}`);
          expect(error.details.reason).to.equal("private_address");
          expect(await count()).to.equal(0);
        });
      }

      it("422 for a cloud metadata address, even with private networks allowed", async () => {
        for (const service of [strict, open]) {
          const error = refused(
            await post(hook({ url: "https://169.254.169.254/latest" }), service),
            422,
            "validation_failed",
            "url",
          );
          expect(error.message).to.equal(
            "url is not allowed: outbound request to 169.254.169.254 refused: 169.254.169.254 " +
              "is a cloud metadata address, which is never allowed",
          );
          expect(error.details.reason).to.equal("metadata_address");
        }
      });

      it("accepts a private address the operator allows (SITEVOICE_OUTBOUND_ALLOW)", async () => {
        await post(hook({ url: "https://10.0.0.5/in" })).expect(201);
      });

      it("accepts private addresses with private networks allowed", async () => {
        await post(hook({ url: "https://10.0.0.6/in" }), open).expect(201);
        await post(hook({ url: "https://localhost/in" }), open).expect(201);
      });

      it("accepts a name that does not resolve: delivery checks it again at every send", async () => {
        await post(hook({ url: "https://hooks.nowhere.invalid/in" })).expect(201);
      });
    });

    describe("site_ids", () => {
      const newSite = async (ws: string) => {
        const siteId = `input-site-${crypto.randomBytes(4).toString("hex")}`;
        await strict.sites.create(operatorPrincipal(ws, "test"), {
          site_id: siteId,
          business_name: "Input Test",
          business_description: "",
          domain: `${siteId}.example`,
        });
        return siteId;
      };

      it("422 validation_failed naming a site that does not exist", async () => {
        const mine = await newSite(workspace);
        const error = refused(
          await post(hook({ site_ids: [mine, "no-such-site"] })),
          422,
          "validation_failed",
          "site_ids",
        );
        expect(error.message).to.equal(
          "site_ids names 'no-such-site', which is not a site of this workspace",
        );
        expect(error.details).to.deep.equal({ field: "site_ids", site_id: "no-such-site" });
      });

      it("422 validation_failed naming another workspace's site", async () => {
        const foreign = await newSite(await strict.workspace());
        const error = refused(
          await post(hook({ site_ids: [foreign] })),
          422,
          "validation_failed",
          "site_ids",
        );
        expect(error.details.site_id).to.equal(foreign);
      });
    });

    describe("a patch", () => {
      let id: string;
      const patch = (body: unknown, endpointId = id) =>
        request(strict.server)
          .patch(`/v1/webhooks/${endpointId}`)
          .set(auth)
          .send(body as object);

      beforeEach(async () => {
        id = (await post(hook({ description: "before" })).expect(201)).body.data.id;
      });
      afterEach(async () => {
        // Whatever a refused patch sent, the endpoint is as it was.
        const row = await strict.store.webhookEndpoints.get(id);
        expect(row).to.deep.include({
          url: `${CRM}/hooks/sitevoice`,
          description: "before",
          events: JSON.stringify(["lead.captured"]),
          site_ids: null,
          enabled: true,
        });
      });

      for (const [what, body, status, field] of [
        ["no field", {}, 400, "body"],
        ["an unknown field", { description: "x", secret: "whsec_x" }, 400, "secret"],
        ["enabled that is not a boolean", { enabled: "yes" }, 400, "enabled"],
        ["url: null", { url: null }, 400, "url"],
        ["events: null", { events: null }, 400, "events"],
        ["plain http", { url: "http://93.184.216.34/in" }, 400, "url"],
        ["a private destination", { url: "https://10.0.0.6/in" }, 422, "url"],
        ["an unknown site", { site_ids: ["no-such-site"] }, 422, "site_ids"],
        ["an unknown event type", { events: ["lead.created"] }, 400, "events.0"],
      ] as const) {
        it(`${status} for ${what}`, async () => {
          const code = status === 400 ? "invalid_request" : "validation_failed";
          refused(await patch(body), status, code, field);
        });
      }

      it("400 for a bad body before looking the endpoint up", async () => {
        const unknown = "wh_00000000000000000000000000";
        refused(await patch({ enabled: "yes" }, unknown), 400, "invalid_request", "enabled");
        refused(await patch({ enabled: true }, unknown), 404, "not_found", undefined);
      });
    });

    describe("the shared middlewares", () => {
      it("413 payload_too_large for a body over 1 MiB", async () => {
        const res = await post(hook({ description: "x".repeat(1024 * 1024) }));
        refused(res, 413, "payload_too_large", undefined);
        expect(res.body.error.details).to.deep.equal({ limit_bytes: 1024 * 1024 });
      });

      it("400 invalid_request for malformed JSON, naming the body", async () => {
        const res = await request(strict.server)
          .post("/v1/webhooks")
          .set(auth)
          .set("Content-Type", "application/json")
          .send('{"url": "https://93.184.216.34/in", "events": [');
        refused(res, 400, "invalid_request", "body");
      });

      it("415 unsupported_media_type for a YAML body", async () => {
        const res = await request(strict.server)
          .post("/v1/webhooks")
          .set(auth)
          .set("Content-Type", "application/yaml")
          .send("url: https://93.184.216.34/in\nevents: [lead.captured]\n");
        refused(res, 415, "unsupported_media_type", "content-type");
      });

      it("400 for a query parameter the route does not take", async () => {
        const res = await request(strict.server).get("/v1/webhooks?limt=5").set(auth);
        refused(res, 400, "invalid_request", "limt");
      });

      it("400 for a limit over 200 and a cursor the service did not issue", async () => {
        const limit = await request(strict.server).get("/v1/webhooks?limit=201").set(auth);
        refused(limit, 400, "invalid_request", "limit");
        const cursor = await request(strict.server).get("/v1/webhooks?cursor=bm9wZQ").set(auth);
        refused(cursor, 400, "invalid_request", "cursor");
      });

      it("405 method_not_allowed with the methods a path takes", async () => {
        const res = await request(strict.server).put("/v1/webhooks/wh_x").set(auth).send({});
        refused(res, 405, "method_not_allowed", undefined);
        expect(res.headers.allow).to.equal("DELETE, GET, HEAD, PATCH");
      });
    });
  });
}
