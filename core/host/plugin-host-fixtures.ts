/**
 * What the PluginHost tests share: a fresh host under the default policy, the example fixture's
 * log of closed instances, an in-memory event sink, and the error a promise rejects with.
 */
import { expect } from "chai";
import { pino } from "pino";
import { definePlugin } from "./plugin.ts";
import { PluginHost } from "./plugin-host.ts";
import { OutboundPolicy } from "../security/outbound-policy.ts";

export const logger = pino({ level: "silent" });

/** The example fixture records each closed instance's dataset here. */
const fixtureGlobals = globalThis as typeof globalThis & { __sitevoiceExampleClosed?: string[] };
export const closedLog = (): string[] => fixtureGlobals.__sitevoiceExampleClosed ?? [];

/**
 * A host for one test, with the example fixture's log emptied. Nothing here connects anywhere: the
 * default policy, as in production.
 */
export function freshHost(): PluginHost {
  fixtureGlobals.__sitevoiceExampleClosed = [];
  return new PluginHost({
    logger,
    outbound: new OutboundPolicy({ allowPrivateNetworks: false }),
  });
}

export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(Error);
    return error as Error;
  }
  return expect.fail("expected a rejection");
}

export function memorySink(name: string, received: unknown[] = []) {
  return definePlugin({
    kind: "event-sink",
    name,
    apiVersion: 1,
    create: (config) => ({
      handle: async (event) => {
        received.push({ config, event });
      },
    }),
  });
}
