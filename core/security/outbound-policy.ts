/**
 * The outbound policy: which addresses the service may connect to on a customer's behalf. Every
 * connection a site config chooses goes through it: HTTP through guardedFetch (REST adapter,
 * voice provider, later the crawler and webhooks), raw TCP through guardedSocket (the SQL
 * adapters). Without it a site config could make the service read its own admin ports, its own
 * databases, the cloud metadata endpoint or anything else on the private network and hand the
 * answer back to whoever controls the site.
 *
 * The rule, for each address connected to:
 * - a cloud metadata address is refused, always, whatever the settings say;
 * - a public address is allowed;
 * - any other address (loopback, private, link-local, unique-local, CGNAT, …) is refused unless
 *   SITEVOICE_ALLOW_PRIVATE_NETWORKS is on, or an entry of SITEVOICE_OUTBOUND_ALLOW covers it
 *   (outbound-allow-list.ts: by host name, address or CIDR, optionally with a port).
 *
 * The addresses checked are the addresses connected to: a host name is resolved once, inside the
 * socket's own `lookup` (see `lookup`), every answer is checked and the socket gets exactly the
 * checked answers, so there is no second resolution a DNS-rebinding server could answer
 * differently. IP literals never reach a `lookup`; callers check them with `checkLiteral`
 * before connecting.
 */
import dns from "node:dns";
import net, { type LookupFunction } from "node:net";
import { addressRange, bareHost, rangeLabel } from "./address-range.ts";
import {
  allowEntryMatches,
  type OutboundAllowEntry,
  type OutboundTarget,
} from "./outbound-allow-list.ts";

/**
 * What a refusal is about: `address` (not public, not allowed), `metadata` (never allowed),
 * `local-socket` (a Unix socket path), `request` (the URL or a redirect broke a rule).
 */
export type OutboundRefusalKind = "address" | "metadata" | "local-socket" | "request";

/** A connection the policy refused. The message names the host, never credentials or paths. */
export class OutboundBlockedError extends Error {
  readonly code = "OUTBOUND_BLOCKED";

  constructor(
    /** The host name (or IP literal) of the refused connection. */
    readonly host: string,
    /** Why, in words that complete "outbound request to <host> refused: …". */
    readonly reason: string,
    readonly kind: OutboundRefusalKind = "request",
  ) {
    super(`outbound request to ${host} refused: ${reason}`);
    this.name = "OutboundBlockedError";
  }
}

/**
 * The outbound policy's refusal within `error` or its causes (a fetch wraps it in "fetch
 * failed"); undefined when there is none. Its message tells a site owner what to ask the
 * operator for. Found by its `code`, so a plugin holding another copy of this module finds it too.
 */
export function outboundRefusal(error: unknown): OutboundBlockedError | undefined {
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 5; depth++) {
    if ((e as { code?: unknown }).code === "OUTBOUND_BLOCKED") return e as OutboundBlockedError;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface OutboundPolicyOptions {
  /** Lets connections reach every non-public address but the metadata ones. */
  allowPrivateNetworks: boolean;
  /** SITEVOICE_OUTBOUND_ALLOW, parsed: private destinations allowed one by one. */
  allow?: readonly OutboundAllowEntry[];
  /**
   * Every address of a host name; `dns.lookup` with `all: true` when left out. Tests give names
   * an address without touching the system resolver.
   */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/** Why one address is refused: its range in words, and whether it is a metadata address. */
export interface AddressRefusal {
  kind: "address" | "metadata";
  /** "a loopback address", "a cloud metadata address, which is never allowed", … */
  description: string;
}

const ALLOW_HINT =
  "private networks are not allowed (the operator can allow this host with SITEVOICE_OUTBOUND_ALLOW)";

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

const systemResolve = async (hostname: string): Promise<ResolvedAddress[]> =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

const MAX_ALLOWED_LITERALS = 1_024;

export class OutboundPolicy {
  readonly #allowPrivateNetworks: boolean;
  readonly #allow: readonly OutboundAllowEntry[];
  readonly #resolve: (hostname: string) => Promise<ResolvedAddress[]>;
  /**
   * Host and port pairs `checkLiteral` allowed: the policy never changes, and every request to a
   * backend asks again. Bounded: emptied when full (forgetting only costs a check).
   */
  readonly #allowedLiterals = new Set<string>();

  constructor(options: OutboundPolicyOptions) {
    this.#allowPrivateNetworks = options.allowPrivateNetworks;
    this.#allow = options.allow ?? [];
    this.#resolve = options.resolve ?? systemResolve;
  }

  /** The policy of the service's settings; built once by each composition root. */
  static fromSettings(settings: {
    allowPrivateNetworks: boolean;
    outboundAllow: readonly OutboundAllowEntry[];
  }): OutboundPolicy {
    return new OutboundPolicy({
      allowPrivateNetworks: settings.allowPrivateNetworks,
      allow: settings.outboundAllow,
    });
  }

  /**
   * Why the connection `target` is refused, or undefined when it is allowed (see the header
   * comment for the rule). Throws on an `address` that is not an IP address.
   */
  refusal(target: OutboundTarget): AddressRefusal | undefined {
    const range = addressRange(target.address);
    if (range === "metadata") {
      return { kind: "metadata", description: "a cloud metadata address, which is never allowed" };
    }
    if (range === "public" || this.#allowPrivateNetworks) return undefined;
    if (this.#allow.some((entry) => allowEntryMatches(entry, target))) return undefined;
    return { kind: "address", description: `a ${rangeLabel(range)} address` };
  }

  /**
   * Called before connecting to `host`:`port` when `host` may be an IP literal (with or without
   * brackets), which no `lookup` will see: throws OutboundBlockedError when the policy refuses
   * it. Does nothing for a host name; its addresses are checked by `lookup`.
   */
  checkLiteral(host: string, port: number): void {
    const key = `${host} ${port}`;
    if (this.#allowedLiterals.has(key)) return;
    const address = bareHost(host);
    // What sockets take as an IP (and so never look up) is what is checked here.
    const refusal =
      net.isIP(address) === 0 ? undefined : this.refusal({ host: address, address, port });
    if (refusal === undefined) {
      if (this.#allowedLiterals.size >= MAX_ALLOWED_LITERALS) this.#allowedLiterals.clear();
      this.#allowedLiterals.add(key);
      return;
    }
    throw new OutboundBlockedError(
      host,
      `${address} is ${refusal.description}${hintFor(refusal)}`,
      refusal.kind,
    );
  }

  /**
   * A `lookup` for one new socket to `port` (net.connect, http.request, tls.connect take it):
   * resolves the name once, refuses with OutboundBlockedError when any answer is refused, and
   * hands the socket exactly the checked answers. Called for every new connection, so that the
   * port is known; a reused keep-alive socket does no DNS work.
   */
  lookup(port: number): LookupFunction {
    const lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
      this.#checkedAddresses(hostname, port, options.family).then(
        (usable) => {
          const first = usable[0] as ResolvedAddress;
          if (options.all) callback(null, usable);
          else callback(null, first.address, first.family);
        },
        (error: unknown) => callback(error as NodeJS.ErrnoException, ""),
      );
    };
    return lookup as LookupFunction;
  }

  /**
   * Checks where `url` (http or https) would connect, before anything does, as a webhook
   * endpoint's URL is checked when it is saved: an IP literal as it is, a host name by every
   * address it resolves to now. Throws OutboundBlockedError when the policy refuses one. A name
   * that does not resolve, or not within `timeoutMs`, passes: every connection is checked again
   * when it is made, and that check is the one that guards.
   */
  async checkUrlDestination(url: URL, timeoutMs = 2_000): Promise<void> {
    const port = url.port !== "" ? Number(url.port) : url.protocol === "http:" ? 80 : 443;
    if (net.isIP(bareHost(url.hostname)) !== 0) {
      this.checkLiteral(url.hostname, port);
      return;
    }
    // Settles to the refusal or to undefined, never rejects, so losing the race leaves no
    // unhandled rejection behind.
    const checked = this.#checkedAddresses(url.hostname, port, undefined).then(
      () => undefined,
      (error: unknown) => (error instanceof OutboundBlockedError ? error : undefined),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs).unref();
    });
    try {
      const refused = await Promise.race([checked, timeout]);
      if (refused !== undefined) throw refused;
    } finally {
      clearTimeout(timer);
    }
  }

  async #checkedAddresses(hostname: string, port: number, family: unknown) {
    const answers = await this.#resolve(hostname);
    for (const { address } of answers) {
      const refusal = this.refusal({ host: hostname, address, port });
      // The address itself is not named: it would map the service's internal DNS for whoever
      // controls the host name.
      if (refusal !== undefined) {
        throw new OutboundBlockedError(
          hostname,
          `it resolves to ${refusal.description}${hintFor(refusal)}`,
          refusal.kind,
        );
      }
    }
    const usable =
      family === 4 || family === 6 ? answers.filter((a) => a.family === family) : answers;
    if (usable.length === 0) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: "ENOTFOUND",
        hostname,
      });
    }
    return usable;
  }
}

const hintFor = (refusal: AddressRefusal) =>
  refusal.kind === "metadata" ? "" : `, and ${ALLOW_HINT}`;
