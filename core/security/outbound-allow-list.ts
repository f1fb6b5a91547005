/**
 * SITEVOICE_OUTBOUND_ALLOW: the operator's list of private destinations the service may connect
 * to on a site's behalf (a database on the internal network, an API behind the firewall),
 * without opening every private address with SITEVOICE_ALLOW_PRIVATE_NETWORKS.
 *
 * Entries, comma-separated:
 * - a host name (`db.internal`): exact and case-insensitive; allows that name whatever it
 *   resolves to (the operator vouches for the name);
 * - an IP address (`10.0.0.5`, `fd00::5`, `[fd00::5]`) or a CIDR (`10.0.0.0/8`, `fd00::/8`):
 *   allows the addresses inside it, however they are reached;
 * - any of those with a port (`db.internal:5432`, `10.0.0.5:3306`, `[fd00::5]:5432`,
 *   `10.0.0.0/8:5432`, `[fd00::]/8:5432`): that port only.
 * Cloud metadata addresses stay refused whatever the list says (outbound-policy.ts).
 */
import ipaddr from "ipaddr.js";
import { bareHost, effectiveAddress } from "./address-range.ts";

/** One parsed entry; `port` undefined means every port. */
export type OutboundAllowEntry =
  | { kind: "host"; host: string; port?: number }
  | { kind: "network"; address: string; prefixLength: number; port?: number };

/** A connection the list is asked about: the name it was made to, the address and the port. */
export interface OutboundTarget {
  /** The host name (or IP literal) the caller asked for. */
  host: string;
  /** The IP address connected to. */
  address: string;
  port: number;
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

/**
 * The entries of a SITEVOICE_OUTBOUND_ALLOW value; empty entries are skipped. Throws an Error
 * naming the first bad entry and what is wrong with it; settings.ts turns it into a SettingsError.
 */
export function parseOutboundAllowList(raw: string): OutboundAllowEntry[] {
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map(parseOutboundAllowEntry);
}

/** One entry (see the header comment); throws an Error naming it when it is none of the forms. */
export function parseOutboundAllowEntry(text: string): OutboundAllowEntry {
  const fail = (why: string) => new Error(`"${text}" ${why}`);
  if (text.includes("://")) throw fail("is a URL; give the host name (and :port) only");
  const bracketed = /^\[([^\]]*)\](?:\/(\d+))?(?::(\d+))?$/.exec(text);
  if (bracketed !== null) {
    const [, address = "", prefix, port] = bracketed;
    if (!ipaddr.IPv6.isValid(address) || address.includes("%")) {
      throw fail("is not an IPv6 address in brackets");
    }
    return network(address, prefix, port, fail);
  }
  if ((text.match(/:/g) ?? []).length >= 2) {
    // A bare IPv6 address or CIDR; a port needs the brackets.
    const [address = "", prefix, extra] = text.split("/");
    if (extra !== undefined || !ipaddr.IPv6.isValid(address) || address.includes("%")) {
      throw fail("is not an IPv6 address or CIDR (write [fd00::5]:5432 for one with a port)");
    }
    return network(address, prefix, undefined, fail);
  }
  const [host = "", port, extra] = text.split(":");
  if (extra !== undefined) throw fail("has more than one port");
  if (/^[\d./]+$/.test(host)) {
    const [address = "", prefix, more] = host.split("/");
    if (more !== undefined || !ipaddr.IPv4.isValidFourPartDecimal(address)) {
      throw fail("is not an IPv4 address or CIDR such as 10.0.0.5 or 10.0.0.0/8");
    }
    return network(address, prefix, port, fail);
  }
  const name = host.replace(/\.$/, "").toLowerCase();
  if (!HOST_NAME.test(name)) throw fail("is not a host name, host:port, IP address or CIDR");
  return { kind: "host", host: name, ...portOf(port, fail) };
}

function network(
  address: string,
  prefix: string | undefined,
  port: string | undefined,
  fail: (why: string) => Error,
): OutboundAllowEntry {
  const ip = ipaddr.parse(address);
  const bits = ip.kind() === "ipv4" ? 32 : 128;
  let prefixLength = bits;
  if (prefix !== undefined) {
    prefixLength = Number(prefix);
    if (!/^\d{1,3}$/.test(prefix) || prefixLength > bits) {
      throw fail(`has a prefix length that is not 0 to ${bits}`);
    }
  } else {
    // One address written as an IPv6 form of an IPv4 one allows that IPv4 address.
    const effective = effectiveAddress(address);
    if (effective.kind() === "ipv4") {
      return {
        kind: "network",
        address: effective.toString(),
        prefixLength: 32,
        ...portOf(port, fail),
      };
    }
  }
  return { kind: "network", address: ip.toString(), prefixLength, ...portOf(port, fail) };
}

function portOf(port: string | undefined, fail: (why: string) => Error): { port?: number } {
  if (port === undefined) return {};
  const value = Number(port);
  if (!/^\d{1,5}$/.test(port) || value < 1 || value > 65535) {
    throw fail("has a port that is not 1 to 65535");
  }
  return { port: value };
}

/** Whether `entry` allows the connection `target`. */
export function allowEntryMatches(entry: OutboundAllowEntry, target: OutboundTarget): boolean {
  if (entry.port !== undefined && entry.port !== target.port) return false;
  if (entry.kind === "host") return normalHost(target.host) === entry.host;
  const range = ipaddr.parse(entry.address);
  const raw = ipaddr.parse(target.address);
  if (raw.kind() === "ipv6") (raw as ipaddr.IPv6).zoneId = undefined;
  // The address as written and the IPv4 address it carries, if any.
  return [raw, effectiveAddress(target.address)].some(
    (ip) => ip.kind() === range.kind() && ip.match(range, entry.prefixLength),
  );
}

/** A host name as entries hold it: lower case, no brackets, no trailing dot. */
const normalHost = (host: string): string => bareHost(host).replace(/\.$/, "").toLowerCase();
