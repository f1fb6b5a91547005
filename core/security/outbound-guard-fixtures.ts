/**
 * What the outbound guard tests share: the guarded fetch of a policy, a throwaway server, the
 * refusal a request ends in, and a resolver for made-up names.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { guardedFetch } from "./outbound-guard.ts";
import {
  OutboundBlockedError,
  OutboundPolicy,
  type OutboundPolicyOptions,
  type ResolvedAddress,
} from "./outbound-policy.ts";

/** The guarded fetch of a policy built from `options`. */
export const guardedWith = (
  options: OutboundPolicyOptions,
  extra: { maxRedirects?: number; idleTimeoutMs?: number } = {},
) => guardedFetch({ policy: new OutboundPolicy(options), ...extra });

/** A throwaway server on 127.0.0.1 for what the DRF stand-in does not do. */
export async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

export async function refusalOf(promise: Promise<unknown>): Promise<OutboundBlockedError> {
  try {
    await promise;
  } catch (error) {
    expect(error, String(error)).to.be.instanceOf(OutboundBlockedError);
    return error as OutboundBlockedError;
  }
  return expect.fail("expected the request to be refused");
}

/** A resolver for made-up names, counting its calls; unknown names do not resolve. */
export function fakeDns(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const entry = table[hostname];
    const addresses = typeof entry === "function" ? entry() : entry;
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    }
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, calls };
}
