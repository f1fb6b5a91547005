/** The health report: the database's answer and every plugin's state, degraded without a store. */
import { expect } from "chai";
import pino from "pino";
import { healthReport } from "./health.ts";
import { definePlugin } from "./host/plugin.ts";
import { PluginHost } from "./host/plugin-host.ts";
import { OutboundPolicy } from "./security/outbound-policy.ts";
import { loadSettings } from "./settings.ts";
import { openDatabase } from "./store/database.ts";
import { Store } from "./store/store.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "../test/helpers/test-databases.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("healthReport", function () {
  let database: TestDatabase | undefined;
  let store: Store;
  let plugins: PluginHost;

  beforeEach(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
    plugins = new PluginHost({
      logger: pino({ level: "silent" }),
      outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
    });
    plugins.register(
      definePlugin({
        kind: "event-sink",
        name: "sink-for-health",
        apiVersion: 1,
        create: () => ({ handle: async () => undefined }),
      }),
      "test",
    );
  });

  afterEach(async () => {
    await plugins.close();
    await store.close().catch(() => undefined);
    await database?.drop();
  });

  it("is ok with the database's latency while the store answers", async () => {
    const report = await healthReport(store, plugins);
    expect(report.status).to.equal("ok");
    expect(report.database).to.include({ client: "sqlite", ok: true });
    expect(report.database.latency_ms).to.be.a("number").and.at.least(0);
  });

  it("lists every plugin with its kind and state", async () => {
    const report = await healthReport(store, plugins);
    expect(report.plugins).to.deep.equal([
      {
        name: "sink-for-health",
        kind: "event-sink",
        type: undefined,
        status: "registered",
        error: undefined,
        note: undefined,
      },
    ]);
  });

  it("is degraded, without the driver's words, when the store does not answer", async () => {
    await store.close();
    const report = await healthReport(store, plugins);
    expect(report.status).to.equal("degraded");
    expect(report.database).to.deep.equal({
      client: "sqlite",
      ok: false,
      error: "database did not answer",
    });
  });
});
