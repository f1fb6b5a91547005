/**
 * The connector of the guarded fetch's undici Agent: how undici opens each new connection, with
 * the outbound policy applied to it. undici calls a connector once per new connection (never for
 * a reused keep-alive one) with the origin's host name, protocol and port.
 *
 * On each call:
 * - an IP literal is checked before connecting (no `lookup` sees one);
 * - a host name is connected with the policy's `lookup` for that connection's port, so the
 *   addresses checked are the addresses connected to: one resolution, no DNS-rebinding window.
 *   The allow-list may name a port, which is why the port must reach the lookup; undici's own
 *   `connect` options are one object for every origin and would hand net/tls a lookup that does
 *   not know it, so the connector keeps one of undici's connectors per port, each with its lookup;
 * - TLS connects to the NAME (undici's connector sets `servername` and `host` from it), so the
 *   certificate is verified against the host name, not against the checked address.
 */
import { buildConnector } from "undici";
import type { OutboundPolicy } from "./outbound-policy.ts";

/**
 * An undici connector whose connections pass `policy` (see the header comment). `options` are
 * undici's `buildConnector` options (TLS options, the connect timeout, TCP keep-alive); a
 * `lookup` among them is replaced by the policy's.
 */
export function guardedConnector(
  policy: OutboundPolicy,
  options: buildConnector.BuildOptions = {},
): buildConnector.connector {
  // Built on first use of a port; the ports a service reaches are few.
  const byPort = new Map<number, buildConnector.connector>();
  return (target, callback) => {
    const port = Number(target.port) || (target.protocol === "https:" ? 443 : 80);
    try {
      policy.checkLiteral(target.hostname, port);
    } catch (error) {
      callback(error as Error, null);
      return;
    }
    let connect = byPort.get(port);
    if (connect === undefined) {
      connect = buildConnector({ ...options, lookup: policy.lookup(port) });
      byPort.set(port, connect);
    }
    connect(target, callback);
  };
}
