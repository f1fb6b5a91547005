/**
 * What the outbound policy allows: the rule for each range with and without private networks,
 * SITEVOICE_OUTBOUND_ALLOW entries, IP literals checked before connecting, and checked lookups.
 * outbound-policy-addresses.test.ts covers the classification of addresses.
 */
import { expect } from "chai";
import { parseOutboundAllowList } from "./outbound-allow-list.ts";
import { OutboundBlockedError, OutboundPolicy, type ResolvedAddress } from "./outbound-policy.ts";

/** The default policy: public addresses only. */
const strict = new OutboundPolicy({ allowPrivateNetworks: false });
const open = new OutboundPolicy({ allowPrivateNetworks: true });
const allowing = (list: string) =>
  new OutboundPolicy({ allowPrivateNetworks: false, allow: parseOutboundAllowList(list) });

/** What `policy` says of connecting to `address`:`port`, reached as `host` (the address). */
const verdict = (policy: OutboundPolicy, address: string, port = 5432, host = address) =>
  policy.refusal({ host, address, port });

/** The error `checkLiteral` throws, or undefined when it lets the literal through. */
function literalRefusal(policy: OutboundPolicy, host: string, port = 5432) {
  try {
    policy.checkLiteral(host, port);
  } catch (error) {
    expect(error).to.be.instanceOf(OutboundBlockedError);
    return error as OutboundBlockedError;
  }
  return undefined;
}

/** Runs the policy's lookup for `hostname`:`port` over a made-up resolver. */
function lookupThrough(
  policy: (resolve: (name: string) => Promise<ResolvedAddress[]>) => OutboundPolicy,
  answers: string[],
  hostname: string,
  port: number,
): Promise<string[]> {
  const resolve = async () =>
    answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  return new Promise((done, fail) => {
    policy(resolve).lookup(port)(hostname, { all: true }, (error, addresses) => {
      if (error) fail(error);
      else done((addresses as ResolvedAddress[]).map((a) => a.address));
    });
  });
}

describe("outbound policy", () => {
  describe("the rule", () => {
    it("allows a public address", () => {
      expect(verdict(strict, "93.184.216.34")).to.equal(undefined);
    });

    it("refuses a loopback address, naming its range", () => {
      expect(verdict(strict, "127.0.0.1")).to.deep.equal({
        kind: "address",
        description: "a loopback address",
      });
    });

    it("refuses a private address", () => {
      expect(verdict(strict, "10.0.0.5")?.description).to.equal("a private address");
    });

    it("refuses a carrier-grade NAT address", () => {
      expect(verdict(strict, "100.72.0.9")?.description).to.equal(
        "a carrier-grade NAT (shared) address",
      );
    });

    it("refuses a unique-local IPv6 address", () => {
      expect(verdict(strict, "fd12::7")?.description).to.equal("a unique-local address");
    });

    it("refuses another special-purpose range by its name", () => {
      expect(verdict(strict, "2002:7f00:1::1")?.description).to.equal(
        "a special-purpose (6to4) address",
      );
    });

    for (const address of ["127.0.0.1", "10.0.0.1", "::1", "fd12::1", "100.64.0.1"]) {
      it(`lets ${address} through when private networks are allowed`, () => {
        expect(verdict(open, address), address).to.equal(undefined);
      });
    }

    for (const address of ["169.254.169.254", "::ffff:169.254.169.254", "fd00:ec2::254"]) {
      it(`refuses the metadata address ${address} even with private networks allowed`, () => {
        expect(verdict(open, address), address).to.deep.equal({
          kind: "metadata",
          description: "a cloud metadata address, which is never allowed",
        });
      });
    }

    it("refuses 168.63.129.16 even with private networks allowed", () => {
      expect(verdict(open, "168.63.129.16")?.kind).to.equal("metadata");
    });
  });

  describe("SITEVOICE_OUTBOUND_ALLOW entries", () => {
    it("an IP entry without a port allows that address on every port", () => {
      const policy = allowing("10.0.0.5");
      expect(verdict(policy, "10.0.0.5", 5432)).to.equal(undefined);
      expect(verdict(policy, "10.0.0.5", 22)).to.equal(undefined);
      expect(verdict(policy, "10.0.0.6", 5432)?.kind).to.equal("address");
    });

    it("an IP entry with a port allows that port only", () => {
      const policy = allowing("127.0.0.1:3306");
      expect(verdict(policy, "127.0.0.1", 3306)).to.equal(undefined);
      expect(verdict(policy, "127.0.0.1", 5432)?.kind).to.equal("address");
    });

    it("an IPv6 entry in brackets with a port allows that address and port", () => {
      const policy = allowing("[fd00::5]:5432");
      expect(verdict(policy, "fd00::5", 5432)).to.equal(undefined);
      expect(verdict(policy, "fd00::5", 5433)?.kind).to.equal("address");
      expect(verdict(policy, "fd00::6", 5432)?.kind).to.equal("address");
    });

    it("an IPv4 CIDR allows the addresses inside it", () => {
      const policy = allowing("10.0.0.0/8");
      expect(verdict(policy, "10.200.3.4")).to.equal(undefined);
      expect(verdict(policy, "11.0.0.1")).to.equal(undefined); // public anyway
      expect(verdict(policy, "192.168.0.1")?.kind).to.equal("address");
    });

    it("an IPv4 CIDR with a port allows that port only", () => {
      const policy = allowing("10.0.0.0/8:5432");
      expect(verdict(policy, "10.1.1.1", 5432)).to.equal(undefined);
      expect(verdict(policy, "10.1.1.1", 3306)?.kind).to.equal("address");
    });

    it("an IPv6 CIDR allows the addresses inside it", () => {
      const policy = allowing("fd00::/8");
      expect(verdict(policy, "fd12:3456::1")).to.equal(undefined);
      expect(verdict(policy, "fc00::1")?.kind).to.equal("address");
      expect(verdict(policy, "10.0.0.1")?.kind).to.equal("address");
    });

    it("an IPv4 entry covers the IPv6 forms that carry that address", () => {
      const policy = allowing("127.0.0.1");
      expect(verdict(policy, "::ffff:127.0.0.1")).to.equal(undefined);
      expect(verdict(policy, "::7f00:1")).to.equal(undefined);
    });

    it("a host-name entry allows that name whatever it resolves to, not its address", () => {
      const policy = allowing("DB.Internal");
      expect(verdict(policy, "10.0.0.5", 5432, "db.internal")).to.equal(undefined);
      expect(verdict(policy, "127.0.0.1", 1, "db.internal.")).to.equal(undefined);
      expect(verdict(policy, "10.0.0.5", 5432, "other.internal")?.kind).to.equal("address");
      expect(verdict(policy, "10.0.0.5", 5432)?.kind).to.equal("address");
    });

    it("a host-name entry with a port allows that port only", () => {
      const policy = allowing("db.internal:5432");
      expect(verdict(policy, "10.0.0.5", 5432, "db.internal")).to.equal(undefined);
      expect(verdict(policy, "10.0.0.5", 3306, "db.internal")?.kind).to.equal("address");
    });

    it("no entry allows a metadata address", () => {
      const policy = allowing(
        "169.254.169.254,169.254.0.0/16,168.63.129.16,0.0.0.0/0,::/0,metadata.google.internal",
      );
      expect(verdict(policy, "169.254.169.254")?.kind).to.equal("metadata");
      expect(verdict(policy, "168.63.129.16")?.kind).to.equal("metadata");
      expect(verdict(policy, "fd00:ec2::254")?.kind).to.equal("metadata");
      const named = verdict(policy, "169.254.169.254", 80, "metadata.google.internal");
      expect(named?.kind).to.equal("metadata");
    });
  });

  describe("checkLiteral", () => {
    it("refuses a private IP literal before any connection, naming it", () => {
      const error = literalRefusal(strict, "10.0.0.5");
      expect(error?.message).to.equal(
        "outbound request to 10.0.0.5 refused: 10.0.0.5 is a private address, and private " +
          "networks are not allowed (the operator can allow this host with SITEVOICE_OUTBOUND_ALLOW)",
      );
      expect(error?.kind).to.equal("address");
    });

    it("takes an IPv6 literal with or without brackets", () => {
      expect(literalRefusal(strict, "[::1]")?.kind).to.equal("address");
      expect(literalRefusal(strict, "::1")?.kind).to.equal("address");
      expect(literalRefusal(strict, "[::7f00:1]")?.kind).to.equal("address");
    });

    it("refuses a metadata literal as never allowed", () => {
      const error = literalRefusal(open, "169.254.169.254", 80);
      expect(error?.kind).to.equal("metadata");
      expect(error?.message).to.match(/which is never allowed$/);
    });

    it("leaves host names to the lookup", () => {
      expect(literalRefusal(strict, "localhost")).to.equal(undefined);
      expect(literalRefusal(strict, "db.internal")).to.equal(undefined);
    });
  });

  describe("lookup", () => {
    it("answers a name's checked addresses", async () => {
      const addresses = await lookupThrough(
        (resolve) => new OutboundPolicy({ allowPrivateNetworks: false, resolve }),
        ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
        "shop.example",
        443,
      );
      expect(addresses).to.deep.equal(["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]);
    });

    it("refuses a name when any answer is refused, without naming the address", async () => {
      let caught: unknown;
      await lookupThrough(
        (resolve) => new OutboundPolicy({ allowPrivateNetworks: false, resolve }),
        ["93.184.216.34", "10.0.0.5"],
        "split.example",
        443,
      ).catch((error: unknown) => (caught = error));
      expect(caught).to.be.instanceOf(OutboundBlockedError);
      expect((caught as Error).message).to.equal(
        "outbound request to split.example refused: it resolves to a private address, and " +
          "private networks are not allowed " +
          "(the operator can allow this host with SITEVOICE_OUTBOUND_ALLOW)",
      );
    });

    it("judges the port the lookup was made for", async () => {
      const policy = (resolve: (name: string) => Promise<ResolvedAddress[]>) =>
        new OutboundPolicy({
          allowPrivateNetworks: false,
          allow: parseOutboundAllowList("10.0.0.5:5432"),
          resolve,
        });
      expect(await lookupThrough(policy, ["10.0.0.5"], "db.internal", 5432)).to.deep.equal([
        "10.0.0.5",
      ]);
      let caught: unknown;
      await lookupThrough(policy, ["10.0.0.5"], "db.internal", 6379).catch(
        (error: unknown) => (caught = error),
      );
      expect((caught as OutboundBlockedError).kind).to.equal("address");
    });
  });
});
