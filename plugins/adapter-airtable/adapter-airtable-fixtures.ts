/**
 * What the Airtable adapter tests share: adapters made through a host as the service makes them
 * (with `context.oauth` answering a test's token), the products collection and a checked query.
 */
import type { DataAdapter, OAuthAccess, PluginHost } from "sitevoice";
import { conformanceCollection, conformanceQuery, testPluginHost } from "sitevoice/testing";
import airtablePlugin, { type AirtableConfig } from "./index.ts";

export const signal = new AbortController().signal;

/** The access token the stand-in accepts, long and unlike any other text of a message. */
export const TOKEN = "oaat_standin_TOPSECRET_6f1d2c.v1";

/** The conformance collection on the table named Products. */
export const products = conformanceCollection("Products");

/** A checked query as the service would hand it over: no filters, limit 10. */
export const query = conformanceQuery;

/**
 * Adapters as the service makes them: through a PluginHost whose `context.oauth` answers
 * `accessToken` (TOKEN when left out), with the host's clock `now` when given. closeHosts closes
 * the hosts of every adapter made.
 */
export function airtableAdapters() {
  const hosts: PluginHost[] = [];
  async function airtableAdapter(
    config: AirtableConfig,
    options: { accessToken?: () => string | Promise<string>; now?: () => number } = {},
  ): Promise<DataAdapter> {
    const host = testPluginHost({
      accessToken: options.accessToken ?? (() => TOKEN),
      now: options.now,
    });
    return await instanceOf(host, config);
  }
  /** An adapter of a host made by the caller (one whose `oauthAccess` it controls). */
  async function instanceOf(host: PluginHost, config: AirtableConfig): Promise<DataAdapter> {
    host.register(airtablePlugin, "builtin:adapter-airtable");
    host.start();
    hosts.push(host);
    return await host.instance("adapter", "airtable", config, "site-x");
  }
  async function closeHosts() {
    for (const host of hosts.splice(0)) await host.close();
  }
  return { airtableAdapter, instanceOf, closeHosts };
}

/**
 * An OAuthAccess that answers `tokens` in turn, one per call, and records each call's options:
 * the host's token keeper as a test sees it.
 */
export function scriptedAccess(tokens: string[]) {
  const calls: { rejected?: string }[] = [];
  const access: OAuthAccess = {
    async accessToken(options = {}) {
      calls.push({ rejected: options.rejected });
      return tokens[Math.min(calls.length, tokens.length) - 1] as string;
    },
  };
  return { access, calls };
}
