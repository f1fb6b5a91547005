/**
 * How the outbound policy names an address's range (public, loopback, private, metadata, ...); an
 * IPv6 form that carries an IPv4 address is judged by that IPv4 address.
 */
import { expect } from "chai";
import { addressRange, isPublicAddress } from "./address-range.ts";
import { parseOutboundAllowList } from "./outbound-allow-list.ts";
import { OutboundBlockedError, OutboundPolicy } from "./outbound-policy.ts";

/**
 * 169.254.169.254 (a9fe:a9fe) in every IPv6 form that carries an IPv4 address, by where it sits.
 * The local-use NAT64 prefix (RFC 8215) may be used at any length from /48 (RFC 6052 §2.2 puts
 * the IPv4 address elsewhere for each); Teredo (RFC 4380) carries its server's address and its
 * client's, the latter with every bit flipped.
 */
const METADATA_IN_IPV6: Record<string, string> = {
  "IPv4-mapped": "::ffff:a9fe:a9fe",
  "IPv4-compatible": "::a9fe:a9fe",
  SIIT: "::ffff:0:a9fe:a9fe",
  "well-known NAT64 (64:ff9b::/96)": "64:ff9b::a9fe:a9fe",
  "local-use NAT64 at /96": "64:ff9b:1::a9fe:a9fe",
  "local-use NAT64 at /64": "64:ff9b:1:0:a9:fea9:fe00:0",
  "local-use NAT64 at /56": "64:ff9b:1:a9:fe:a9fe::",
  "local-use NAT64 at /48": "64:ff9b:1:a9fe:a9:fe00::",
  "6to4 (2002::/16)": "2002:a9fe:a9fe::1",
  "Teredo server (2001::/32)": "2001:0:a9fe:a9fe::1",
  "Teredo client (2001::/32, flipped)": "2001:0:4136:e378:8000:63bf:5601:5601",
};

describe("outbound policy", () => {
  describe("address classification", () => {
    const ranges: Record<string, string> = {
      "93.184.216.34": "public",
      "2606:2800:220:1:248:1893:25c8:1946": "public",
      "127.0.0.1": "loopback",
      "127.255.0.9": "loopback",
      "10.1.2.3": "private",
      "172.16.0.1": "private",
      "172.31.255.254": "private",
      "192.168.1.1": "private",
      "169.254.1.1": "linkLocal",
      "100.64.0.1": "carrierGradeNat",
      "224.0.0.1": "multicast",
      "0.0.0.0": "unspecified",
      "255.255.255.255": "broadcast",
      "240.0.0.1": "reserved",
      "::1": "loopback",
      "::": "unspecified",
      "fe80::1": "linkLocal",
      "fc00::1": "uniqueLocal",
      "fd12:3456::1": "uniqueLocal",
      "ff02::1": "multicast",
      "2002:7f00:1::1": "6to4",
      "64:ff9b:1::7f00:1": "rfc6052",
      "169.254.169.254": "metadata",
      "169.254.170.2": "metadata",
      "100.100.100.200": "metadata",
      "fd00:ec2::254": "metadata",
    };
    for (const [address, range] of Object.entries(ranges)) {
      it(`calls ${address} ${range}`, () => {
        expect(addressRange(address)).to.equal(range);
        expect(isPublicAddress(address)).to.equal(range === "public");
      });
    }

    it("calls Azure's wireserver 168.63.129.16 a metadata address", () => {
      expect(addressRange("168.63.129.16")).to.equal("metadata");
      expect(addressRange("::ffff:168.63.129.16")).to.equal("metadata");
    });

    it("judges an IPv4-mapped address by its IPv4 address (::ffff:127.0.0.1)", () => {
      expect(addressRange("::ffff:127.0.0.1")).to.equal("loopback");
      expect(addressRange("::ffff:7f00:1")).to.equal("loopback");
      expect(addressRange("::ffff:10.0.0.1")).to.equal("private");
      expect(addressRange("::ffff:169.254.169.254")).to.equal("metadata");
    });

    it("judges an IPv4-compatible address by its IPv4 address (::7f00:1, URL's [::127.0.0.1])", () => {
      expect(new URL("https://[::127.0.0.1]/").hostname).to.equal("[::7f00:1]");
      expect(addressRange("::7f00:1")).to.equal("loopback");
      expect(addressRange("::127.0.0.1")).to.equal("loopback");
      expect(addressRange("::a00:5")).to.equal("private");
      expect(addressRange("::a9fe:a9fe")).to.equal("metadata");
      expect(addressRange("::808:808")).to.equal("public");
    });

    it("judges a SIIT address by its IPv4 address (::ffff:0:a.b.c.d)", () => {
      expect(addressRange("::ffff:0:127.0.0.1")).to.equal("loopback");
      expect(addressRange("::ffff:0:a00:5")).to.equal("private");
      expect(addressRange("::ffff:0:169.254.169.254")).to.equal("metadata");
      expect(addressRange("::ffff:0:8.8.8.8")).to.equal("public");
    });

    it("judges a well-known NAT64 address by its IPv4 address (64:ff9b::a.b.c.d)", () => {
      expect(addressRange("64:ff9b::7f00:1")).to.equal("loopback");
      expect(addressRange("64:ff9b::a9fe:a9fe")).to.equal("metadata");
      expect(addressRange("64:ff9b::808:808")).to.equal("public");
    });

    for (const [form, address] of Object.entries(METADATA_IN_IPV6)) {
      it(`calls ${address} (169.254.169.254 as ${form}) metadata`, () => {
        expect(addressRange(address)).to.equal("metadata");
      });
    }

    it("keeps the local-use NAT64 prefix from passing for public (64:ff9b:1::808:808)", () => {
      expect(addressRange("64:ff9b:1::808:808")).to.equal("rfc6052");
    });

    it("keeps IPv6's own unspecified and loopback addresses out of the IPv4-compatible rule", () => {
      expect(addressRange("::")).to.equal("unspecified");
      expect(addressRange("::1")).to.equal("loopback");
      expect(addressRange("::2")).to.equal("unspecified"); // 0.0.0.2
    });
  });

  describe("metadata carried in IPv6, with private networks allowed and the address allowed", () => {
    for (const [form, address] of Object.entries(METADATA_IN_IPV6)) {
      it(`refuses [${address}] (169.254.169.254 as ${form})`, () => {
        const policy = new OutboundPolicy({
          allowPrivateNetworks: true,
          allow: parseOutboundAllowList(`[${address}],169.254.169.254,169.254.0.0/16`),
        });
        let refused: unknown;
        try {
          policy.checkLiteral(`[${address}]`, 80);
        } catch (error) {
          refused = error;
        }
        expect(refused).to.be.instanceOf(OutboundBlockedError);
        expect((refused as OutboundBlockedError).kind).to.equal("metadata");
      });
    }
  });
});
