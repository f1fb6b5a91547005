/**
 * How plugins reach the network: `context.fetch`, `context.request` and `context.socket`, made
 * from the outbound policy (the guarded fetch and request over one guarded Agent, and the guarded
 * socket) or handed in ready-made by a test. Apart from the host so that a change to the outbound
 * guard touches this module only.
 */
import type { Socket } from "node:net";
import { guardedAgent, guardedFetch } from "../security/outbound-guard.ts";
import { guardedRequest, type GuardedRequest } from "../security/guarded-request.ts";
import { guardedSocket } from "../security/guarded-socket.ts";
import { OutboundPolicy } from "../security/outbound-policy.ts";

/** What plugins connect with: `context.fetch`, `context.request` and `context.socket`. */
export interface PluginNetwork {
  fetch: typeof fetch;
  request: GuardedRequest;
  socket: () => Socket;
  /** Ends what the network keeps open (kept-alive connections); when the host closes. */
  close?: () => Promise<void>;
}

/** The network of `outbound`: guarded by it when it is a policy, else `outbound` itself. */
export function pluginNetwork(outbound: OutboundPolicy | PluginNetwork): PluginNetwork {
  if (!(outbound instanceof OutboundPolicy)) return outbound;
  const policy = outbound;
  // One pool of checked connections for both clients.
  const agent = guardedAgent({ policy });
  return {
    fetch: guardedFetch({ policy }, agent),
    request: guardedRequest(agent, { policy }),
    socket: () => guardedSocket(policy),
    close: () => agent.close(),
  };
}
