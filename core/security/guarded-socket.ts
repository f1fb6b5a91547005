/**
 * Raw TCP under the outbound policy, for plugins that speak their own protocol (the SQL
 * adapters): a net.Socket whose `connect` checks where it goes. Drivers that take a socket
 * factory (pg's and mysql2's `stream`) get one of these and call `connect(port, host)` on it as
 * they would on a plain socket.
 *
 * On `connect`:
 * - a Unix socket path is refused: it reaches the service's own machine, whatever the name;
 * - an IP literal (`10.0.0.5`, `::1`, `[::1]`) is checked before connecting;
 * - a host name is connected with the policy's `lookup`, so the addresses checked are the
 *   addresses connected to (one resolution, no DNS-rebinding window). The socket still connects
 *   to the NAME, so TLS on top of it (pg's and mysql2's `ssl`) verifies the certificate against
 *   the name, not against the checked IP.
 * A refusal destroys the socket with an OutboundBlockedError, emitted as its 'error' on a later
 * tick, so a caller that attaches its listener after `connect` (as drivers do) receives it.
 */
import net from "node:net";
import { bareHost } from "./address-range.ts";
import { OutboundBlockedError, type OutboundPolicy } from "./outbound-policy.ts";

/** A new, unconnected socket whose connections pass `policy` (see the header comment). */
export function guardedSocket(policy: OutboundPolicy): net.Socket {
  return new GuardedSocket(policy);
}

class GuardedSocket extends net.Socket {
  readonly #policy: OutboundPolicy;

  constructor(policy: OutboundPolicy) {
    super();
    this.#policy = policy;
  }

  /** Takes every form net.Socket#connect takes: (options), (port, host?), (path); + listener. */
  override connect(...args: unknown[]): this {
    const listener = typeof args.at(-1) === "function" ? (args.pop() as () => void) : undefined;
    const [first, second] = args;
    let options: net.SocketConnectOpts;
    if (typeof first === "object" && first !== null) {
      options = first as net.SocketConnectOpts;
    } else if (typeof first === "string" && !/^\d+$/.test(first)) {
      // As net does: a string that is not a port number is a pipe or Unix socket path.
      options = { path: first };
    } else {
      options = { port: Number(first), ...(typeof second === "string" ? { host: second } : {}) };
    }
    if ("path" in options && options.path !== undefined) {
      return this.#refuse(
        new OutboundBlockedError(
          "a Unix socket",
          "a Unix socket path reaches the service's own machine",
          "local-socket",
        ),
      );
    }
    const tcp = options as net.TcpSocketConnectOpts;
    // net connects to localhost when no host is given; the policy judges that name then.
    const host = bareHost(tcp.host ?? "localhost");
    const port = Number(tcp.port);
    try {
      this.#policy.checkLiteral(host, port);
    } catch (error) {
      return this.#refuse(error as Error);
    }
    // The policy's lookup replaces any other: it is where a host name's addresses are checked.
    return super.connect({ ...tcp, host, lookup: this.#policy.lookup(port) }, listener);
  }

  #refuse(error: Error): this {
    process.nextTick(() => this.destroy(error));
    return this;
  }
}
