/**
 * Webhook delivery end to end on the real service: an event recorded by the widget path (a lead,
 * a session's end) reaches a real HTTP receiver, which verifies every request with independent
 * libraries (Standard Webhooks' `standardwebhooks` and @octokit/webhooks-methods' `verify`); the
 * body has the API reference's shape; the delivery log, the test event and redelivery over the API.
 */
import { verify } from "@octokit/webhooks-methods";
import { expect } from "chai";
import request from "supertest";
import { Webhook } from "standardwebhooks";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { startReceiver, type Receiver, type Received } from "./helpers/webhook-receiver.ts";
import { inlineSiteWithSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** Both verifications of one request, as a receiver would run them; throws when either fails. */
async function verified(secret: string, request: Received): Promise<Record<string, unknown>> {
  const headers = request.headers as Record<string, string>;
  const payload = new Webhook(secret).verify(request.body, headers) as Record<string, unknown>;
  const hex = headers["x-service-signature"];
  if (!(await verify(secret, request.body, hex as string))) {
    throw new Error("X-Service-Signature does not verify");
  }
  expect(Date.now() - Number(headers["x-service-timestamp"])).to.be.within(0, 5 * 60_000);
  return payload;
}

describe("webhook delivery to a real receiver", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let receiver: Receiver;
  let site: WidgetSession;
  let endpoint: { id: string; secret: string };
  let key: string;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    });
    receiver = await startReceiver();
    site = await inlineSiteWithSession(service, { prefix: "hooks", domain: "hooks.example" });
    key = await service.key(site.workspaceId, { scopes: ["webhooks:write"] });
    endpoint = await addEndpoint(service.store, service.ring, {
      workspaceId: site.workspaceId,
      url: receiver.url,
      events: ["lead.captured", "session.ended", "lead.updated"],
    });
  });
  after(async () => {
    await service?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it("delivers a lead captured by the widget, signed, with the lead in the API reference's shape", async () => {
    const res = await signedPost(service, site, "/leads", {
      name: "Ana Silva",
      email: "ana@example.com",
      message: "Wants a quote",
    });
    expect(res.status).to.equal(201);
    await receiver.waitFor(1);
    const [request] = receiver.received;
    const payload = await verified(endpoint.secret, request!);
    expect(Object.keys(payload).sort()).to.deep.equal([
      "created_at",
      "data",
      "id",
      "site_id",
      "type",
    ]);
    expect(payload).to.include({ type: "lead.captured", site_id: site.siteId });
    expect(payload.id).to.match(/^evt_/);
    expect(new Date(payload.created_at as string).toISOString()).to.equal(payload.created_at);
    const data = payload.data as {
      site_id: string;
      lead: Record<string, unknown>;
      update_token: string;
    };
    expect(data.site_id).to.equal(site.siteId);
    expect(data.lead).to.include({ id: res.body.data.lead_id, email: "ana@example.com" });
    expect(data.update_token).to.match(/^lt_/);
    expect(request!.headers["x-service-event"]).to.equal("lead.captured");
    expect(request!.headers["x-service-delivery"]).to.match(/^dlv_/);
    expect(request!.headers["webhook-id"]).to.equal(payload.id);
  });

  it("delivers conversation.ended to an endpoint subscribed as session.ended", async () => {
    const call = { type: "function_call", function_name: "search_database" };
    expect((await signedPost(service, site, "/analytics/event", call)).status).to.equal(202);
    const before = receiver.received.length;
    const res = await signedPost(service, site, "/analytics/event", {
      type: "session_end",
    });
    expect(res.status).to.equal(202);
    await receiver.waitFor(before + 1);
    const payload = await verified(endpoint.secret, receiver.received[before]!);
    expect(payload.type).to.equal("conversation.ended");
    expect(payload.site_id).to.equal(site.siteId);
    // The API reference's example fields of the session-ended event; no call of the session was
    // controlled, so its cost is unknown and the event goes without it.
    expect(payload.data).to.include({
      session_id: site.session_id,
      function_calls: 1,
      db_queries: 0,
    });
    expect(payload.data).to.not.have.property("cost_cents");
    expect((payload.data as { duration_seconds: number }).duration_seconds).to.be.a("number");
  });

  it("logs each delivery with its attempt, newest first", async () => {
    const res = await request(service.server)
      .get(`/v1/webhooks/${endpoint.id}/deliveries`)
      .set("Authorization", `Bearer ${key}`)
      .expect(200);
    const deliveries = res.body.data as Record<string, unknown>[];
    expect(deliveries.map((d) => d.event_type)).to.deep.equal([
      "conversation.ended",
      "lead.captured",
    ]);
    const [latest] = deliveries;
    expect(latest).to.include({ status: "delivered", attempt_count: 1, next_attempt_at: null });
    const [attempt] = latest!.attempts as Record<string, unknown>[];
    expect(attempt).to.include({ attempt: 1, status_code: 200, error: null });
    expect(attempt!.latency_ms).to.be.a("number");
    expect(res.body.meta.next_cursor).to.equal(null);
  });

  it("sends a synthetic webhook.test on request", async () => {
    const before = receiver.received.length;
    const res = await request(service.server)
      .post(`/v1/webhooks/${endpoint.id}/test`)
      .set("Authorization", `Bearer ${key}`)
      .expect(202);
    expect(res.body.data.delivery_id).to.match(/^dlv_/);
    await receiver.waitFor(before + 1);
    const payload = await verified(endpoint.secret, receiver.received[before]!);
    expect(payload).to.include({ type: "webhook.test", id: res.body.data.event_id, site_id: null });
  });

  it("redelivers an event with the same event id as a new delivery", async () => {
    const log = await request(service.server)
      .get(`/v1/webhooks/${endpoint.id}/deliveries?limit=1&status=delivered`)
      .set("Authorization", `Bearer ${key}`)
      .expect(200);
    const original = log.body.data[0] as { id: string; event_id: string };
    const before = receiver.received.length;
    const res = await request(service.server)
      .post(`/v1/webhooks/${endpoint.id}/deliveries/${original.id}/redeliver`)
      .set("Authorization", `Bearer ${key}`)
      .expect(202);
    await receiver.waitFor(before + 1);
    const again = receiver.received[before]!;
    const payload = await verified(endpoint.secret, again);
    expect(payload.id).to.equal(original.event_id);
    expect(again.headers["x-service-delivery"]).to.equal(res.body.data.delivery_id);
    expect(res.body.data.delivery_id).to.not.equal(original.id);
  });

  describe("bad requests", () => {
    const call = (method: "get" | "post", path: string, auth = true) => {
      const req = request(service.server)[method](path);
      return auth ? req.set("Authorization", `Bearer ${key}`) : req;
    };

    it("401 without a key, 403 without webhooks:write", async () => {
      await call("get", `/v1/webhooks/${endpoint.id}/deliveries`, false).expect(401);
      const reader = await service.key(site.workspaceId, { scopes: ["sites:read"] });
      const res = await request(service.server)
        .post(`/v1/webhooks/${endpoint.id}/test`)
        .set("Authorization", `Bearer ${reader}`)
        .expect(403);
      expect(res.body.error.code).to.equal("forbidden");
    });

    it("404 for another workspace's endpoint, and for an unknown delivery", async () => {
      const other = await service.workspace();
      const otherKey = await service.key(other, { scopes: ["webhooks:write"] });
      const paths = [
        ["get", `/v1/webhooks/${endpoint.id}/deliveries`],
        ["post", `/v1/webhooks/${endpoint.id}/test`],
      ] as const;
      for (const [method, path] of paths) {
        const agent = request(service.server);
        const call = method === "get" ? agent.get(path) : agent.post(path);
        const res = await call.set("Authorization", `Bearer ${otherKey}`).expect(404);
        expect(res.body.error.code).to.equal("not_found");
      }
      const res = await call(
        "post",
        `/v1/webhooks/${endpoint.id}/deliveries/dlv_nope/redeliver`,
      ).expect(404);
      expect(res.body.error.code).to.equal("not_found");
    });

    it("404 for another workspace's delivery named through one's own endpoint", async () => {
      const other = await service.workspace();
      const theirs = await addEndpoint(service.store, service.ring, {
        workspaceId: other,
        url: receiver.url,
        events: ["webhook.test"],
      });
      const otherKey = await service.key(other, { scopes: ["webhooks:write"] });
      const sent = await request(service.server)
        .post(`/v1/webhooks/${theirs.id}/test`)
        .set("Authorization", `Bearer ${otherKey}`)
        .expect(202);
      const path = `/v1/webhooks/${endpoint.id}/deliveries/${sent.body.data.delivery_id}/redeliver`;
      const res = await call("post", path).expect(404);
      expect(res.body.error.code).to.equal("not_found");
    });

    it("404 to a key limited to one site for an endpoint of every site", async () => {
      const limited = await service.key(site.workspaceId, {
        scopes: ["webhooks:write"],
        siteIds: [site.siteId],
      });
      const res = await request(service.server)
        .get(`/v1/webhooks/${endpoint.id}/deliveries`)
        .set("Authorization", `Bearer ${limited}`)
        .expect(404);
      expect(res.body.error.code).to.equal("not_found");
    });

    it("400 for a bad status, limit or cursor, an unknown parameter or a body on an action", async () => {
      const path = `/v1/webhooks/${endpoint.id}/deliveries`;
      for (const [query, field] of [
        ["status=sent", "status"],
        ["limit=0", "limit"],
        ["limit=201", "limit"],
        ["cursor=garbage", "cursor"],
        ["since=2026-01-01", "since"],
      ] as const) {
        const res = await call("get", `${path}?${query}`).expect(400);
        expect(res.body.error.code).to.equal("invalid_request");
        expect(res.body.error.details.field).to.equal(field);
      }
      const res = await call("post", `/v1/webhooks/${endpoint.id}/test`)
        .send({ type: "x" })
        .expect(400);
      expect(res.body.error.details.field).to.equal("body");
    });

    it("pages the log with a cursor, no delivery twice", async () => {
      const first = await call("get", `/v1/webhooks/${endpoint.id}/deliveries?limit=2`).expect(200);
      const cursor = first.body.meta.next_cursor as string;
      expect(cursor).to.be.a("string");
      const rest = await call(
        "get",
        `/v1/webhooks/${endpoint.id}/deliveries?limit=200&cursor=${cursor}`,
      ).expect(200);
      const ids = [...first.body.data, ...rest.body.data].map((d: { id: string }) => d.id);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(ids.length).to.equal(await countDeliveries(service, endpoint.id));
    });
  });
});

async function countDeliveries(service: TestService, endpointId: string): Promise<number> {
  const counts = await service.store.webhookDeliveries.countByStatus(endpointId);
  return counts.pending + counts.delivered + counts.abandoned;
}

describe("webhook delivery on an API-only instance (SITEVOICE_JOBS=off)", function () {
  let database: TestDatabase;
  let service: TestService;
  let receiver: Receiver;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      SITEVOICE_JOBS: "off",
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await service?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it("records the delivery but leaves the sending to instances that run jobs", async () => {
    const workspaceId = await service.workspace();
    const { id } = await addEndpoint(service.store, service.ring, {
      workspaceId,
      url: receiver.url,
      events: ["lead.captured"],
    });
    await service.events.transaction((_tx, record) =>
      record({ type: "lead.captured", workspace_id: workspaceId, site_id: "shop", data: {} }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).to.have.length(0);
    expect(await service.store.webhookDeliveries.countByStatus(id)).to.deep.equal({
      pending: 1,
      delivered: 0,
      abandoned: 0,
    });
  });
});
