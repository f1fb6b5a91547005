/**
 * What the REST adapter tests share: adapters made through a host as the service makes them, the
 * products collection and a checked query, credentials to keep out of messages, a closed port.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { DataAdapter, PluginHost } from "sitevoice";
import { conformanceCollection, conformanceQuery, testPluginHost } from "sitevoice/testing";
import restPlugin, { type RestConfig } from "./index.ts";

export const signal = new AbortController().signal;
export const products = conformanceCollection("/products/");

export const BEARER_SECRET = "sk_live_TOPSECRET_4242";
export const HEADER_SECRET = "tenant-secret-5678";

/** A checked query as the service would hand it over: no filters, limit 10. */
export const query = conformanceQuery;

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const probe = http.createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Adapters as the service makes them: through a PluginHost handing plugins a guarded fetch. The
 * DRF server is on 127.0.0.1, so private networks are allowed unless a case says not. closeHosts
 * closes the hosts of every adapter made.
 */
export function restAdapters() {
  const hosts: PluginHost[] = [];
  async function restAdapter(
    config: RestConfig,
    options: { allowPrivateNetworks: boolean } = { allowPrivateNetworks: true },
  ): Promise<DataAdapter> {
    const host = testPluginHost(options);
    host.register(restPlugin, "builtin:adapter-rest");
    host.start();
    hosts.push(host);
    return host.instance("adapter", "rest", config, "site-x");
  }
  async function closeHosts() {
    for (const host of hosts) await host.close();
  }
  return { restAdapter, closeHosts };
}
