/** The event bus on each database: batched writes, client ids counted once, nothing lost on close. */
import { expect } from "chai";
import pino from "pino";
import { EventBus, type BusEvent } from "../core/events/event-bus.ts";
import { migrate, openDatabase } from "../core/store/database.ts";
import { Store } from "../core/store/store.ts";
import { loadSettings } from "../core/settings.ts";
import { keyRing } from "../core/security/secret-box.ts";
import { openServiceEvent } from "../core/events/event-bus.ts";
import { connectEventSinks } from "../core/events/event-sinks.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import crypto from "node:crypto";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";

for (const target of databaseTargets) {
  describe(`event bus on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let store: Store;
    const ring = keyRing(crypto.randomBytes(32));
    const logger = pino({ level: "silent" });

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
      await migrate(store.db);
    });
    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it("stores concurrent writes in batches of batchSize; a repeated client id resolves to the first event", async () => {
      const bus = new EventBus(store, ring, { logger, batchSize: 50 });
      const seen: BusEvent[] = [];
      bus.subscribe((event) => seen.push(event));
      // Each batch is one write of the store: count them on this store, for this test only.
      let batches = 0;
      const storeUsage = store.events.storeUsage;
      store.events.storeUsage = function (this: Store["events"], rows) {
        batches += 1;
        return storeUsage.call(this, rows);
      };
      const writes = Array.from({ length: 300 }, (_, i) =>
        bus.recordUsage({
          site_id: "bus-site",
          type: "function_call",
          function_name: "search_database",
          // Every id twice, some in the same batch and some in another.
          client_event_id: `c-${i % 150}`,
        }),
      );
      const events = await Promise.all(writes).finally(() => {
        store.events.storeUsage = storeUsage;
      });
      expect(batches).to.equal(300 / 50);
      // The second write of every client id has the first one's id.
      expect(events.slice(150).map((e) => e.id)).to.deep.equal(
        events.slice(0, 150).map((e) => e.id),
      );
      expect(await store.events.countUsage("bus-site")).to.equal(150);
      expect(seen.filter((e) => e.kind === "usage")).to.have.length(150);
      await bus.close();
    });

    it("writes a batch mixing new and repeated client ids once each, a repeat (in the batch or an earlier one) answering the first write's event", async () => {
      const bus = new EventBus(store, ring, { logger, flushMs: 60_000 });
      const seen: BusEvent[] = [];
      bus.subscribe((event) => seen.push(event));
      let n = 0;
      const write = (clientId?: string) =>
        bus.recordUsage({
          site_id: "mix-site",
          type: "function_call",
          function_name: "search_database",
          metadata: { n: n++ },
          ...(clientId === undefined ? {} : { client_event_id: clientId }),
        });
      const earlier = [write("m-a"), write()];
      await bus.flush();
      const [a, anonymous] = await Promise.all(earlier);
      const later = [write("m-b"), write("m-a"), write("m-b"), write(), write("m-c")];
      await bus.flush();
      const [b, aAgain, bAgain, anonymousToo, c] = await Promise.all(later);
      await bus.close();
      expect(aAgain).to.deep.equal(a);
      expect(bAgain).to.deep.equal(b);
      const firsts = [a!, anonymous!, b!, anonymousToo!, c!];
      expect(new Set(firsts.map((e) => e.id)).size).to.equal(5);
      const stored = await store.events.listUsage("mix-site");
      expect(stored.map((row) => row.id)).to.have.members(firsts.map((e) => e.id));
      expect(stored).to.have.length(5);
      // Each stored event is announced once; a repeat is not announced again.
      expect(seen.map((e) => e.kind === "usage" && e.event.id)).to.have.members(
        firsts.map((e) => e.id),
      );
      expect(seen).to.have.length(5);
    });

    it("rejects every write of a batch whose insert fails, and stores none of it", async () => {
      const bus = new EventBus(store, ring, { logger, flushMs: 60_000 });
      const seen: BusEvent[] = [];
      bus.subscribe((event) => seen.push(event));
      const writes = [
        bus.recordUsage({ site_id: "fail-site", type: "db_query", client_event_id: "f-1" }),
        // No site: refused by the column's NOT NULL on every database.
        bus.recordUsage({ site_id: null as unknown as string, type: "db_query" }),
        bus.recordUsage({ site_id: "fail-site", type: "db_query" }),
      ];
      await bus.flush();
      const results = await Promise.allSettled(writes);
      await bus.close();
      expect(results.map((r) => r.status)).to.deep.equal(["rejected", "rejected", "rejected"]);
      for (const result of results) {
        expect((result as PromiseRejectedResult).reason).to.include({
          code: "service_unavailable",
        });
      }
      expect(await store.events.countUsage("fail-site")).to.equal(0);
      expect(seen).to.deep.equal([]);
    });

    it("refuses to write a usage batch inside a transaction (on SQLite it would wait for itself)", async () => {
      const row = usageRow("tx-site", { id: "evt_in_transaction", created_at: 1 });
      let refused: unknown;
      await store
        .transaction((tx) => tx.events.storeUsage([row]))
        .catch((e: unknown) => (refused = e));
      expect(String(refused)).to.include("outside a transaction");
      expect(await store.events.countUsage("tx-site")).to.equal(0);
    });

    it("stores a usage event whole or refuses it, never with a value cut to fit its column", async () => {
      const bus = new EventBus(store, ring, { logger });
      const name = "f".repeat(150);
      let refused = false;
      await bus
        .recordUsage({ site_id: "long-site", type: "function_call", function_name: name })
        .catch(() => (refused = true));
      await bus.close();
      const stored = await store.events.listUsage("long-site");
      // SQLite keeps any length; the others refuse it.
      expect(stored.map((e) => e.function_name)).to.deep.equal(refused ? [] : [name]);
    });

    it("flushes pending writes on close and refuses new ones after", async () => {
      const bus = new EventBus(store, ring, { logger, flushMs: 60_000 });
      const pending = Array.from({ length: 20 }, () =>
        bus.recordUsage({ site_id: "close-site", type: "db_query" }),
      );
      const service = bus.transaction((_tx, record) =>
        record({
          type: "lead.captured",
          workspace_id: "ws_x",
          site_id: "close-site",
          data: { a: 1 },
        }),
      );
      await bus.close();
      expect(await Promise.all(pending)).to.have.length(20);
      expect((await service).type).to.equal("lead.captured");
      expect(await store.events.countUsage("close-site")).to.equal(20);
      expect(await store.events.listService("ws_x")).to.have.length(1);
      let refused: unknown;
      await bus
        .recordUsage({ site_id: "close-site", type: "db_query" })
        .catch((e: unknown) => (refused = e));
      expect(refused).to.include({ code: "service_unavailable" });
    });

    it("seals an event's secret data fields at rest and hands subscribers the clear value", async () => {
      const bus = new EventBus(store, ring, { logger });
      const seen: BusEvent[] = [];
      bus.subscribe((event) => seen.push(event));
      const token = `lt_${crypto.randomBytes(24).toString("base64url")}`;
      const emitted = await bus.transaction((_tx, record) =>
        record({
          type: "lead.captured",
          workspace_id: "ws_sealed",
          site_id: "sealed-site",
          data: { lead: { id: "lead_1" }, update_token: token },
        }),
      );
      await bus.close();
      expect(emitted.data.update_token).to.equal(token);
      const announced = seen[0];
      expect(announced?.kind).to.equal("service");
      if (announced?.kind === "service") expect(announced.event.data.update_token).to.equal(token);
      const [row] = await store.events.listService("ws_sealed");
      expect(row?.data).not.to.include(token);
      expect(row?.data).to.include("enc:v1:");
      expect(openServiceEvent(row!, ring).data).to.deep.equal({
        lead: { id: "lead_1" },
        update_token: token,
      });
    });

    it("seals the secret fields of an event's type only, whatever other values look like", async () => {
      const bus = new EventBus(store, ring, { logger });
      const seen: BusEvent[] = [];
      bus.subscribe((event) => seen.push(event));
      const data = { site_id: "enc-site", business_name: "enc:v1:x" };
      await bus.transaction((_tx, record) =>
        record({ type: "site.deleted", workspace_id: "ws_enc", site_id: "enc-site", data }),
      );
      await bus.close();
      const [row] = await store.events.listService("ws_enc");
      expect(JSON.parse(row!.data)).to.deep.equal(data);
      expect(openServiceEvent(row!, ring).data).to.deep.equal(data);
      expect(seen.map((e) => e.kind === "service" && e.event.data)).to.deep.equal([data]);
    });

    it("resolves a recorded event as it is stored, with no site_id where it has none", async () => {
      const bus = new EventBus(store, ring, { logger, now: () => 1_700_000_000_123 });
      const data = { n: 1, nested: { list: [1, "two"] } };
      const [withSite, without] = await bus.transaction(async (_tx, record) => [
        await record({ type: "lead.updated", workspace_id: "ws_as", site_id: "as-site", data }),
        await record({ type: "workspace.note", workspace_id: "ws_as", data }),
      ]);
      await bus.close();
      const stored = (await store.events.listService("ws_as")).map((row) =>
        openServiceEvent(row, ring),
      );
      expect([withSite, without]).to.have.deep.members(stored);
      expect(withSite).to.deep.equal({
        id: withSite!.id,
        type: "lead.updated",
        workspace_id: "ws_as",
        site_id: "as-site",
        data,
        created_at: "2023-11-14T22:13:20.123Z",
      });
      expect(without).not.to.have.property("site_id");
    });

    it("hands every committed service event to the event sinks, and none of a rolled-back one", async () => {
      const bus = new EventBus(store, ring, { logger });
      const received: unknown[] = [];
      connectEventSinks(
        bus,
        [
          { handle: async () => Promise.reject(new Error("this sink is down")) },
          { handle: async (event) => void received.push(event) },
        ],
        logger,
      );
      await bus.transaction((_tx, record) =>
        record({
          type: "lead.captured",
          workspace_id: "ws_sinks",
          site_id: "sinks-site",
          data: { n: 1 },
        }),
      );
      let refused: unknown;
      await bus
        .transaction(async (_tx, record) => {
          await record({ type: "lead.updated", workspace_id: "ws_sinks", data: { n: 2 } });
          throw new Error("the change failed");
        })
        .catch((e: unknown) => (refused = e));
      await bus.close();
      expect(refused).to.be.an("error");
      expect(received).to.have.length(1);
      expect(received[0]).to.deep.include({ type: "lead.captured", data: { n: 1 } });
      expect((await store.events.listService("ws_sinks")).map((e) => e.type)).to.deep.equal([
        "lead.captured",
      ]);
    });
  });
}
