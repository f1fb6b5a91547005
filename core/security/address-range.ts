/**
 * What an IP address is, for the outbound policy: public (globally routed unicast), a cloud
 * metadata endpoint, or the special-purpose range it falls in (loopback, private, link-local, …).
 *
 * IPv6 forms that carry an IPv4 address are judged by that IPv4 address, since that is what a
 * connection to them reaches: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`,
 * which the URL parser writes `[::7f00:1]` and ipaddr.js calls plain unicast), SIIT
 * (`::ffff:0:a.b.c.d`) and the well-known NAT64 prefix (`64:ff9b::a.b.c.d`). Forms whose IPv4
 * address may sit in more than one place, or is not the only one they lead to (the local-use
 * NAT64 prefix, 6to4, Teredo), keep their own special-purpose range, never public, and are a
 * metadata address when any IPv4 address they may carry is one.
 */
import ipaddr from "ipaddr.js";

/**
 * Instance metadata services hand out cloud credentials: AWS/GCP/Azure/OpenStack
 * (169.254.169.254), AWS ECS task credentials (169.254.170.2), Alibaba (100.100.100.200), Azure's
 * wireserver (168.63.129.16, a public address that answers only from inside Azure) and the AWS
 * IPv6 endpoint. No setting lets a connection reach them.
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "100.100.100.200",
  "168.63.129.16",
  "fd00:ec2::254",
]);

/** Readable names of ipaddr.js ranges, for messages. */
const RANGE_LABELS: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT (shared)",
  private: "private",
  uniqueLocal: "unique-local",
  reserved: "reserved",
  benchmarking: "benchmarking",
  metadata: "cloud metadata",
};

const NAT64_PREFIX = ipaddr.IPv6.parse("64:ff9b::");
const IPV4_COMPATIBLE_PREFIX = ipaddr.IPv6.parse("::");
/** RFC 8215: 64:ff9b:1::/48, NAT64 for local use, at any prefix length from /48. */
const LOCAL_NAT64_PREFIX = ipaddr.IPv6.parse("64:ff9b:1::");
/** RFC 3056: 2002:a.b.c.d::/48, the 6to4 site of the IPv4 address a.b.c.d. */
const SIX_TO_FOUR_PREFIX = ipaddr.IPv6.parse("2002::");
/** RFC 4380: 2001:0:<server IPv4>:<flags>:<port>:<client IPv4>, the last two with bits flipped. */
const TEREDO_PREFIX = ipaddr.IPv6.parse("2001::");

/**
 * Where RFC 6052 §2.2 puts the IPv4 address (its bytes' indexes) for each NAT64 prefix length of
 * the local-use prefix, /48, /56, /64 and /96: byte 8 (bits 64–71) is always skipped.
 */
const LOCAL_NAT64_LAYOUTS = [
  [6, 7, 9, 10],
  [7, 9, 10, 11],
  [9, 10, 11, 12],
  [12, 13, 14, 15],
];

/**
 * The address a connection to `address` reaches: the IPv4 address an IPv6 form carries (see the
 * header comment), else the address itself, without a zone. Throws on a non-address.
 */
export function effectiveAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const ip = ipaddr.parse(address);
  if (ip.kind() === "ipv4") return ip;
  const v6 = ip as ipaddr.IPv6;
  v6.zoneId = undefined;
  const carried = () => ipaddr.IPv4.parse(v6.toByteArray().slice(12).join("."));
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const range = v6.range();
  // SIIT (RFC 6145): ::ffff:0:a.b.c.d.
  if (range === "rfc6145") return carried();
  // Only the well-known /96 NAT64 prefix surely keeps the IPv4 address in the last 32 bits; the
  // local-use one places it by its length (possibleIPv4s), so it stays special-purpose (refused).
  if (v6.match(NAT64_PREFIX, 96)) return carried();
  // IPv4-compatible (::/96, deprecated but still routed by stacks that know it); :: and ::1 are
  // IPv6's own unspecified and loopback addresses.
  if (v6.match(IPV4_COMPATIBLE_PREFIX, 96) && range !== "unspecified" && range !== "loopback") {
    return carried();
  }
  return v6;
}

/**
 * What an address is: `public` for globally routed unicast, `metadata` for a cloud metadata
 * endpoint, else the ipaddr.js name of the special range it falls in (`loopback`, `private`,
 * `linkLocal`, …). Throws on a non-address.
 */
export function addressRange(address: string): string {
  const ip = effectiveAddress(address);
  // toString() gives IPv6 in its compressed form, the form the set holds.
  if (METADATA_ADDRESSES.has(ip.toString())) return "metadata";
  if (ip.kind() === "ipv6") {
    const carried = possibleIPv4s(ip as ipaddr.IPv6);
    if (carried.some((v4) => METADATA_ADDRESSES.has(v4.toString()))) return "metadata";
  }
  const range = ip.range();
  return range === "unicast" ? "public" : range;
}

/**
 * The IPv4 addresses an IPv6 address of the local-use NAT64 prefix, 6to4 or Teredo may lead to:
 * where a translator, relay or tunnel could take a connection, whichever way it reads them.
 */
function possibleIPv4s(v6: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = v6.toByteArray();
  const at = (indexes: number[]) => new ipaddr.IPv4(indexes.map((i) => bytes[i] as number));
  if (v6.match(LOCAL_NAT64_PREFIX, 48)) return LOCAL_NAT64_LAYOUTS.map(at);
  if (v6.match(SIX_TO_FOUR_PREFIX, 16)) return [at([2, 3, 4, 5])];
  if (v6.match(TEREDO_PREFIX, 32)) {
    const client = new ipaddr.IPv4([12, 13, 14, 15].map((i) => (bytes[i] as number) ^ 0xff));
    return [at([4, 5, 6, 7]), client];
  }
  return [];
}

/** Whether `address` is a public (globally routed unicast) address. */
export const isPublicAddress = (address: string): boolean => addressRange(address) === "public";

/** A range of addressRange as words for a message: "loopback", "carrier-grade NAT (shared)", … */
export const rangeLabel = (range: string): string =>
  RANGE_LABELS[range] ?? `special-purpose (${range})`;

/** A host as sockets and the allow-list take it: an IPv6 literal without its brackets. */
export const bareHost = (host: string): string => host.replace(/^\[(.*)\]$/, "$1");
