/**
 * Nothing acknowledged is lost when an instance dies mid-delivery: 2,000 events are queued for
 * four endpoints, a real `sitevoice serve` starts sending them and is killed with SIGKILL part
 * way; a new one started on the same PostgreSQL database sends the rest, including what the dead
 * one held (after its leases run out). The receiver has every event id at least once, and the
 * delivery log has each delivery delivered, with an attempt for it.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import pino from "pino";
import { EventBus } from "../core/events/event-bus.ts";
import { keyRing } from "../core/security/secret-box.ts";
import { parseDatabaseUrl } from "../core/settings-values.ts";
import { migrate, openDatabase } from "../core/store/database.ts";
import { newId } from "../core/store/ids.ts";
import { Store } from "../core/store/store.ts";
import { enqueueDeliveries } from "../core/webhooks/outbox.ts";
import { freePort, run, serving, stop, type Run } from "./helpers/cli-process.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";

const postgres = databaseTargets.find((t) => t.client === "postgres")!;
const EVENTS = 2_000;
const SITES = 4;

describe("webhook delivery across a kill -9", function () {
  this.timeout(120_000);
  let database: TestDatabase | undefined;
  let store: Store;
  let receiver: Receiver;
  let dataDir: string;
  const running: Run[] = [];
  const masterKey = crypto.randomBytes(32);

  before(async function () {
    database = await createTestDatabase(postgres);
    if (database === undefined) missing(this, "PostgreSQL");
    store = new Store(openDatabase(parseDatabaseUrl(database.url, os.tmpdir())));
    await migrate(store.db);
    receiver = await startReceiver(() => ({ status: 200, delayMs: 5 }));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-crash-"));
  });
  after(async () => {
    for (const started of running) if (started.child.exitCode === null) await stop(started);
    await receiver?.close();
    await store?.close();
    await database?.drop();
    if (dataDir !== undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function serve(): Promise<Run> {
    const started = run(["serve"], dataDir, {
      PORT: String(await freePort()),
      HOST: "127.0.0.1",
      DATABASE_URL: database!.url,
      SITEVOICE_MASTER_KEY: masterKey.toString("base64"),
      SITEVOICE_DATA_DIR: dataDir,
      SITEVOICE_SITES_DIR: "",
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    });
    running.push(started);
    await serving(started);
    return started;
  }

  it("delivers every event at least once, and logs each delivery", async () => {
    const ring = keyRing(masterKey);
    const workspaceId = newId("ws");
    await store.workspaces.insert({
      id: workspaceId,
      name: "Crash",
      plan: "business",
      created_at: Date.now(),
    });
    for (let site = 0; site < SITES; site++) {
      await addEndpoint(store, ring, {
        workspaceId,
        url: `${receiver.url}/${site}`,
        events: ["lead.captured"],
        siteIds: [`site-${site}`],
      });
    }
    // Queued before any instance runs: acknowledged events waiting in the outbox.
    const events = new EventBus(store, ring, {
      logger: pino({ level: "silent" }),
      onRecorded: enqueueDeliveries,
    });
    const ids = new Set<string>();
    for (let batch = 0; batch < EVENTS; batch += 100) {
      await events.transaction(async (_tx, record) => {
        for (let i = batch; i < batch + 100; i++) {
          const site_id = `site-${i % SITES}`;
          ids.add(
            (
              await record({
                type: "lead.captured",
                workspace_id: workspaceId,
                site_id,
                data: { i },
              })
            ).id,
          );
        }
      });
    }

    const first = await serve();
    await receiver.waitFor(EVENTS / 4, 60_000);
    first.child.kill("SIGKILL");
    await first.exited;
    const beforeRestart = receiver.received.length;
    expect(beforeRestart).to.be.below(EVENTS);

    const second = await serve();
    const deadline = Date.now() + 90_000;
    const arrived = () => new Set(receiver.payloads().map((p) => p.id));
    while (arrived().size < EVENTS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(arrived()).to.deep.equal(ids);

    // The log accounts for each delivery: delivered, with the attempt that delivered it. A
    // delivery is marked after its receiver answered, so the last marks may still be on their way.
    const unmarked = () =>
      store.db.knex("webhook_deliveries").whereNot({ status: "delivered" }).first("id");
    while ((await unmarked()) !== undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const deliveries = await store.db.knex("webhook_deliveries").select("id", "event_id", "status");
    expect(deliveries).to.have.length(EVENTS);
    const logged = new Set(
      (
        await store.db.knex("webhook_attempts").where({ status_code: 200 }).select("delivery_id")
      ).map((row: { delivery_id: string }) => row.delivery_id),
    );
    for (const delivery of deliveries) {
      expect(delivery.status, delivery.id).to.equal("delivered");
      expect(logged.has(delivery.id), delivery.id).to.equal(true);
    }
    expect(new Set(deliveries.map((d: { event_id: string }) => d.event_id))).to.deep.equal(ids);
    await stop(second);
  });
});
