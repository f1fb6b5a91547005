/**
 * An endpoint's `site_ids` over the real service, on each of the three databases: endpoints made
 * and patched over the API, events recorded on two sites of one workspace, and real receivers.
 * An endpoint limited to some sites receives their events and none of the others'; one without
 * `site_ids` receives every site's; a PATCH of `site_ids` changes what the next events reach.
 * Each test waits until the dispatcher has sent everything the outbox wrote, so a delivery that
 * should not exist has had its chance to arrive.
 */
import crypto from "node:crypto";
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
import { waitUntil } from "./helpers/wait-until.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";

for (const target of databaseTargets) {
  describe(`webhook endpoints limited to some sites on ${target.label}`, function () {
    this.timeout(30_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let workspace: string;
    let key: string;
    let siteA: string;
    let siteB: string;
    let limited: Receiver;
    let every: Receiver;
    let limitedId: string;
    let everyId: string;

    const api = () => request(service.server);
    const auth = () => ({ Authorization: `Bearer ${key}` });
    /** A new site of this test's workspace; its id. */
    const site = async () => {
      const siteId = `filter-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspace, "test"), {
        site_id: siteId,
        business_name: "Filter Test",
        business_description: "",
        domain: `${siteId}.example`,
      });
      return siteId;
    };
    /** POST /v1/webhooks for `receiver`; the endpoint's id. */
    const endpoint = async (receiver: Receiver, siteIds?: string[]) => {
      const body = {
        url: receiver.url,
        events: ["lead.captured", "conversation.ended"],
        ...(siteIds === undefined ? {} : { site_ids: siteIds }),
      };
      const res = await api().post("/v1/webhooks").set(auth()).send(body).expect(201);
      return res.body.data.id as string;
    };
    /** Records an event of `type` on `siteId`, as the service does; its id. */
    const record = async (siteId: string, type = "lead.captured") => {
      const event = await service.events.transaction((_tx, recordEvent) =>
        recordEvent({ type, workspace_id: workspace, site_id: siteId, data: { n: siteId } }),
      );
      return event.id;
    };
    /** Waits until neither endpoint has a delivery left to send. */
    const settled = () =>
      waitUntil(
        "every delivery to be sent",
        async () => {
          for (const id of [limitedId, everyId]) {
            const counts = await service.store.webhookDeliveries.countByStatus(id);
            if (counts.pending > 0) return false;
          }
          return true;
        },
        20_000,
      );
    /** The event ids `receiver` was sent, sorted. */
    const received = (receiver: Receiver) =>
      receiver
        .payloads()
        .map((payload) => payload.id as string)
        .sort();

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true" });
    });
    beforeEach(async () => {
      workspace = await service.workspace();
      key = await service.key(workspace);
      siteA = await site();
      siteB = await site();
      limited = await startReceiver();
      every = await startReceiver();
      limitedId = await endpoint(limited, [siteA]);
      everyId = await endpoint(every);
    });
    afterEach(async () => {
      await limited?.close();
      await every?.close();
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    describe("events on both sites", () => {
      let onA: string[];
      let onB: string[];

      beforeEach(async () => {
        onB = [await record(siteB)];
        onA = [await record(siteA), await record(siteA, "conversation.ended")];
        onB.push(await record(siteB, "conversation.ended"));
        await settled();
      });

      it("reach an endpoint limited to site A only when they are A's", () => {
        expect(received(limited)).to.deep.equal([...onA].sort());
      });

      it("reach an endpoint without site_ids whichever site they are on", () => {
        expect(received(every)).to.deep.equal([...onA, ...onB].sort());
      });

      it("are sent to the limited endpoint with site A's id only", () => {
        expect(limited.payloads().map((payload) => payload.site_id)).to.deep.equal([siteA, siteA]);
      });
    });

    describe("an endpoint whose site_ids is patched", () => {
      const patch = (siteIds: string[] | null) =>
        api()
          .patch(`/v1/webhooks/${limitedId}`)
          .set(auth())
          .send({ site_ids: siteIds })
          .expect(200);

      it("receives B's events and no longer A's once limited to site B", async () => {
        const before = await record(siteA);
        await settled();
        await patch([siteB]);
        const after = [await record(siteA), await record(siteB)];
        await settled();
        expect(received(limited)).to.deep.equal([before, after[1]].sort());
      });

      it("receives both sites' events once its site_ids is null", async () => {
        await patch(null);
        const events = [await record(siteA), await record(siteB)];
        await settled();
        expect(received(limited)).to.deep.equal([...events].sort());
      });

      it("receives both sites' events once limited to A and B", async () => {
        await patch([siteA, siteB]);
        const events = [await record(siteB), await record(siteA)];
        await settled();
        expect(received(limited)).to.deep.equal([...events].sort());
      });
    });
  });
}
