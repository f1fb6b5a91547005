/**
 * The example third-party adapter (test/fixtures/plugins/sitevoice-adapter-inline, plain ESM as an
 * npm package would ship) loaded by name and run through the conformance kit of sitevoice/testing.
 */
import pino from "pino";
import { PluginHost } from "../core/host/plugin-host.ts";
import { OutboundPolicy } from "../core/security/outbound-policy.ts";
import {
  CONFORMANCE_DATASET,
  conformanceCollection,
  describeAdapterConformance,
} from "../core/host/testing/index.ts";

let host: PluginHost;

describeAdapterConformance(
  "sitevoice-adapter-inline, loaded by package name",
  async () => {
    host = new PluginHost({
      logger: pino({ level: "silent" }),
      outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
    });
    await host.loadPackages(["sitevoice-adapter-inline"]);
    host.start();
    const config = { records: { products: CONFORMANCE_DATASET.map((p) => ({ ...p })) } };
    return {
      adapter: await host.instance("adapter", "inline", config, "site-conformance"),
      collection: conformanceCollection("products"),
      failing: {
        adapter: await host.instance("adapter", "inline", { records: {} }, "site-failing"),
        collection: conformanceCollection("products"),
      },
    };
  },
  () => host.close(),
);
