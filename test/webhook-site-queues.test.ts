/**
 * One endpoint's deliveries go out in a queue per site, several queues at once; each attempt's
 * record updates the endpoint's health in the same transaction. On each of the three databases,
 * events on several sites reach the endpoint once each: the records of two queues never abort
 * each other (on MariaDB they once deadlocked on the endpoint's row, and the aborted delivery was
 * sent again).
 */
import crypto from "node:crypto";
import { expect } from "chai";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";

const SITES = 4;
const EVENTS_PER_SITE = 6;

for (const target of databaseTargets) {
  describe(`one endpoint's queues of several sites on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let receiver: Receiver;
    let recorded: string[];
    let endpointId: string;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true" });
      receiver = await startReceiver();
      const workspaceId = await service.workspace();
      ({ id: endpointId } = await addEndpoint(service.store, service.ring, {
        workspaceId,
        url: receiver.url,
        events: ["lead.captured"],
      }));
      const sites = Array.from({ length: SITES }, () => crypto.randomBytes(4).toString("hex"));
      recorded = [];
      for (let n = 0; n < EVENTS_PER_SITE; n++) {
        for (const siteId of sites) {
          const event = await service.events.transaction((_tx, record) =>
            record({ type: "lead.captured", workspace_id: workspaceId, site_id: siteId, data: {} }),
          );
          recorded.push(event.id);
        }
      }
      await waitUntil(
        "every delivery to be sent",
        async () => (await service.store.webhookDeliveries.countByStatus(endpointId)).pending === 0,
        40_000,
      );
    });
    after(async () => {
      await service?.stop();
      await receiver?.close();
      await database?.drop();
    });

    it("sends each event once", () => {
      const ids = receiver.payloads().map((payload) => payload.id as string);
      expect([...ids].sort()).to.deep.equal([...recorded].sort());
    });

    it("records one attempt per delivery", async () => {
      const counts = await service.store.webhookDeliveries.countByStatus(endpointId);
      expect(counts).to.deep.equal({ pending: 0, delivered: recorded.length, abandoned: 0 });
      const attempts = await service.store.db
        .knex("webhook_attempts as a")
        .join("webhook_deliveries as d", "d.id", "a.delivery_id")
        .where("d.endpoint_id", endpointId)
        .count<{ n: number | string }[]>({ n: "*" });
      expect(Number(attempts[0]!.n)).to.equal(recorded.length);
    });
  });
}
