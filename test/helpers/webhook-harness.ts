/**
 * The webhook dispatcher on a real store (a fresh SQLite file), with a clock the test moves by
 * hand: an event bus whose events write the outbox, the dispatcher and its deliveries, a mailer
 * (a real SMTP server's, when given) and an outbound policy of the test's choosing.
 */
import crypto from "node:crypto";
import os from "node:os";
import pino from "pino";
import { EventBus } from "../../core/events/event-bus.ts";
import { pluginNetwork } from "../../core/host/plugin-network.ts";
import { logMailer, smtpMailer, type Mailer } from "../../core/mail/mailer.ts";
import { OutboundPolicy } from "../../core/security/outbound-policy.ts";
import { keyRing, type KeyRing } from "../../core/security/secret-box.ts";
import { parseDatabaseUrl } from "../../core/settings-values.ts";
import { migrate, openDatabase } from "../../core/store/database.ts";
import { newId } from "../../core/store/ids.ts";
import { Store } from "../../core/store/store.ts";
import { Delivery } from "../../core/webhooks/delivery.ts";
import { memoryDeliveryRate } from "../../core/webhooks/delivery-rate.ts";
import { WebhookDispatcher } from "../../core/webhooks/dispatcher.ts";
import { mailedNotice } from "../../core/webhooks/endpoint-health.ts";
import { enqueueDeliveries } from "../../core/webhooks/outbox.ts";
import { createTestDatabase, databaseTargets, type TestDatabase } from "./test-databases.ts";

export interface Harness {
  store: Store;
  ring: KeyRing;
  events: EventBus;
  dispatcher: WebhookDispatcher;
  workspaceId: string;
  /** The test's clock, in ms; starts at 2026-11-02T09:00:00Z. */
  clock: { now: number };
  /** Records a `lead.captured`-like service event of `type` now. */
  record(type?: string, siteId?: string): Promise<string>;
  close(): Promise<void>;
}

export const HARNESS_START = Date.parse("2026-11-02T09:00:00.000Z");

export async function webhookHarness(
  options: {
    policy?: OutboundPolicy;
    smtpPort?: number;
    ownerEmail?: string;
    timeoutMs?: number;
  } = {},
): Promise<Harness> {
  const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
  const database = (await createTestDatabase(sqlite)) as TestDatabase;
  const store = new Store(openDatabase(parseDatabaseUrl(database.url, os.tmpdir())));
  await migrate(store.db);
  const ring = keyRing(crypto.randomBytes(32));
  const logger = pino({ level: "silent" });
  const clock = { now: HARNESS_START };
  const now = () => clock.now;
  const events = new EventBus(store, ring, { logger, now, onRecorded: enqueueDeliveries });
  const workspaceId = newId("ws");
  await store.workspaces.insert({
    id: workspaceId,
    name: "Hooks",
    plan: "business",
    created_at: clock.now,
    contact_email: options.ownerEmail ?? null,
  });
  const mailer: Mailer =
    options.smtpPort === undefined
      ? logMailer(logger)
      : smtpMailer(
          `smtp://127.0.0.1:${options.smtpPort}`,
          "Sitevoice <hooks@sitevoice.test>",
          logger,
        );
  const network = pluginNetwork(
    options.policy ?? new OutboundPolicy({ allowPrivateNetworks: true }),
  );
  const delivery = new Delivery({
    store,
    ring,
    request: network.request,
    rate: memoryDeliveryRate(),
    notice: mailedNotice(store, mailer, logger),
    logger,
    now,
    timeoutMs: options.timeoutMs,
  });
  const dispatcher = new WebhookDispatcher(store, delivery, logger, { now });
  return {
    store,
    ring,
    events,
    dispatcher,
    workspaceId,
    clock,
    async record(type = "lead.captured", siteId = "shop") {
      const event = await events.transaction((_tx, record) =>
        record({
          type,
          workspace_id: workspaceId,
          site_id: siteId,
          data: { n: crypto.randomUUID() },
        }),
      );
      return event.id;
    },
    async close() {
      await dispatcher.stop();
      await network.close?.();
      await mailer.close();
      await store.close();
      await database.drop();
    },
  };
}
