/**
 * How plugins reach the network: `context.fetch` and `context.socket`, made from the outbound
 * policy (the guarded fetch and the guarded socket) or handed in ready-made by a test. Apart from
 * the host so that a change to the outbound guard touches this module only.
 */
import type { Socket } from "node:net";
import { guardedFetch } from "../security/outbound-guard.ts";
import { guardedSocket } from "../security/guarded-socket.ts";
import { OutboundPolicy } from "../security/outbound-policy.ts";

/** What plugins connect with: `context.fetch` and `context.socket`. */
export interface PluginNetwork {
  fetch: typeof fetch;
  socket: () => Socket;
  /** Ends what the network keeps open (the fetch's kept-alive connections); when the host closes. */
  close?: () => Promise<void>;
}

/** The network of `outbound`: guarded by it when it is a policy, else `outbound` itself. */
export function pluginNetwork(outbound: OutboundPolicy | PluginNetwork): PluginNetwork {
  if (!(outbound instanceof OutboundPolicy)) return outbound;
  const fetch = guardedFetch({ policy: outbound });
  return { fetch, socket: () => guardedSocket(outbound), close: () => fetch.close() };
}
