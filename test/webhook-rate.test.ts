/**
 * At most 100 deliveries per second per endpoint across instances: two services on one
 * PostgreSQL database share Redis; 1,000 events for one endpoint (over 40 sites, so that many
 * queues could go out at once) reach a receiver that answers slowly. In no window of one second
 * does the receiver see more than 100, both instances deliver, and every event arrives.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { redisAvailable, TEST_REDIS_URL } from "./helpers/test-redis.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";

const postgres = databaseTargets.find((t) => t.client === "postgres")!;
const EVENTS = 1_000;
const SITES = 40;

/** The most arrivals within any window of `windowMs` starting at an arrival. */
function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

describe("webhook delivery rate across two instances sharing Redis", function () {
  this.timeout(90_000);
  let database: TestDatabase | undefined;
  const services: TestService[] = [];
  let receiver: Receiver;

  before(async function () {
    if (!(await redisAvailable())) missing(this, `Redis at ${TEST_REDIS_URL}`);
    database = await createTestDatabase(postgres);
    if (database === undefined) missing(this, "PostgreSQL");
    const env = {
      REDIS_URL: TEST_REDIS_URL,
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      // Instances of one installation share the master key that seals the endpoint's secret.
      SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
    };
    for (let i = 0; i < 2; i++) services.push(await startTestService(database.url, env));
    receiver = await startReceiver(() => ({ status: 204, delayMs: 150 }));
  });
  after(async () => {
    for (const service of services) await service.stop();
    await receiver?.close();
    await database?.drop();
  });

  it("never sends more than 100 in a second, and sends everything", async () => {
    const [first, second] = services as [TestService, TestService];
    const workspaceId = await first.workspace();
    const endpoint = await addEndpoint(first.store, first.ring, {
      workspaceId,
      url: receiver.url,
      events: ["lead.captured"],
    });
    // Recorded on both instances, as the load balancer would spread the requests.
    const ids = new Set<string>();
    for (let i = 0; i < EVENTS; i++) {
      const service = i % 2 === 0 ? first : second;
      const event = await service.events.transaction((_tx, record) =>
        record({
          type: "lead.captured",
          workspace_id: workspaceId,
          site_id: `site-${i % SITES}`,
          data: { i },
        }),
      );
      ids.add(event.id);
    }
    await receiver.waitFor(EVENTS, 60_000);
    const times = receiver.received.map((r) => r.at);
    const busiest = busiestWindow(times, 1_000);
    expect(busiest).to.be.at.most(100);
    // The limit is what held them back: without it 32 queues at 150 ms would send over 200/s.
    expect(busiest).to.be.at.least(80);
    expect(new Set(receiver.payloads().map((p) => p.id))).to.deep.equal(ids);
    // Once every attempt is recorded: each sent once, by one instance or the other.
    const deadline = Date.now() + 10_000;
    while ((await first.store.webhookDeliveries.countByStatus(endpoint.id)).delivered < EVENTS) {
      if (Date.now() > deadline) throw new Error("the deliveries were not all recorded");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(receiver.received).to.have.length(EVENTS);
    expect(first.webhookDispatcher.attempted).to.be.above(0);
    expect(second.webhookDispatcher.attempted).to.be.above(0);
    expect(first.webhookDispatcher.attempted + second.webhookDispatcher.attempted).to.equal(
      receiver.received.length,
    );
  });
});
