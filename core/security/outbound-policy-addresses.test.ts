/**
 * How the outbound policy names an address's range (public, loopback, private, metadata, ...); an
 * IPv6 form that carries an IPv4 address is judged by that IPv4 address.
 */
import { expect } from "chai";
import { addressRange, isPublicAddress } from "./address-range.ts";

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

    it("keeps IPv6's own unspecified and loopback addresses out of the IPv4-compatible rule", () => {
      expect(addressRange("::")).to.equal("unspecified");
      expect(addressRange("::1")).to.equal("loopback");
      expect(addressRange("::2")).to.equal("unspecified"); // 0.0.0.2
    });
  });
});
