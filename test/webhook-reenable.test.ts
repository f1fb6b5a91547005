/**
 * An endpoint disabled by its receiver (410 Gone) and re-enabled through the API: events recorded
 * while it was disabled keep their deliveries, and re-enabling sends those still within their 24
 * hours (in order, verified with the secret the create showed) and abandons the older ones.
 */
import { expect } from "chai";
import request from "supertest";
import { Webhook } from "standardwebhooks";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const DAY = 24 * 3_600_000;

describe("re-enabling a disabled webhook endpoint", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let receiver: Receiver;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true" });
    receiver = await startReceiver(() => ({ status: 410 }));
  });
  after(async () => {
    await service?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it("sends what is still within its 24 hours, and abandons the rest", async () => {
    const workspaceId = await service.workspace();
    const key = await service.key(workspaceId, { scopes: ["webhooks:write"] });
    const api = (method: "post" | "patch" | "get", path: string) =>
      request(service.server)[method](path).set("Authorization", `Bearer ${key}`);
    const created = await api("post", "/v1/webhooks")
      .send({ url: receiver.url, events: ["lead.captured"] })
      .expect(201);
    const { id, secret } = created.body.data as { id: string; secret: string };
    const record = async (n: number) =>
      (
        await service.events.transaction((_tx, rec) =>
          rec({ type: "lead.captured", workspace_id: workspaceId, site_id: "shop", data: { n } }),
        )
      ).id;

    await record(0);
    await receiver.waitFor(1);
    const gone = await pollFor(async () => {
      const res = await api("get", `/v1/webhooks/${id}`).expect(200);
      return res.body.data.enabled === false ? res.body.data : undefined;
    });
    expect(gone.disabled_reason).to.equal("the receiver answered 410 Gone");

    // Recorded while disabled: nothing is sent, but the deliveries are kept.
    const stale = await record(1);
    const fresh = [await record(2), await record(3)];
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).to.have.length(1);
    // One of them is from more than a day ago.
    await service.store.db
      .knex("webhook_deliveries")
      .where({ event_id: stale })
      .update({ created_at: Date.now() - DAY - 60_000 });

    receiver.answer = () => ({ status: 200 });
    const enabled = await api("patch", `/v1/webhooks/${id}`).send({ enabled: true }).expect(200);
    expect(enabled.body.data).to.include({ enabled: true, disabled_at: null });
    await receiver.waitFor(1 + fresh.length);
    const sent = receiver.received.slice(1).map((r) => {
      const payload = new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
      return (payload as { id: string }).id;
    });
    // The first, refused with 410, waits for its retry a minute after that attempt.
    expect(sent).to.deep.equal(fresh);
    const log = await api("get", `/v1/webhooks/${id}/deliveries?status=abandoned`).expect(200);
    expect(log.body.data.map((d: { event_id: string }) => d.event_id)).to.deep.equal([stale]);
  });
});

async function pollFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
