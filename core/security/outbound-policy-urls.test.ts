/**
 * `checkUrlDestination`: a URL's destination judged before anything connects (a webhook
 * endpoint when it is saved), IP literals as they are, names by what a made-up resolver answers,
 * and a name that does not resolve (or not in time) let through to the check at connection time.
 */
import { expect } from "chai";
import { parseOutboundAllowList } from "./outbound-allow-list.ts";
import { OutboundBlockedError, OutboundPolicy, type ResolvedAddress } from "./outbound-policy.ts";

/** A policy whose resolver answers `answers` for every name and records the names asked. */
function policyResolving(
  answers: Record<string, string[]>,
  options: { allowPrivateNetworks?: boolean; allow?: string } = {},
) {
  const asked: string[] = [];
  const policy = new OutboundPolicy({
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    allow: parseOutboundAllowList(options.allow ?? ""),
    resolve: async (name): Promise<ResolvedAddress[]> => {
      asked.push(name);
      const found = answers[name];
      if (found === undefined) {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      }
      return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    },
  });
  return { policy, asked };
}

/** The refusal `checkUrlDestination` throws for `url`, or undefined when it lets it through. */
async function refusalOf(policy: OutboundPolicy, url: string, timeoutMs?: number) {
  try {
    await policy.checkUrlDestination(new URL(url), timeoutMs);
  } catch (error) {
    expect(error).to.be.instanceOf(OutboundBlockedError);
    return error as OutboundBlockedError;
  }
  return undefined;
}

describe("outbound policy: checkUrlDestination", () => {
  it("lets a name that resolves to public addresses through", async () => {
    const { policy, asked } = policyResolving({ "hooks.example": ["93.184.216.34"] });
    expect(await refusalOf(policy, "https://hooks.example/in")).to.equal(undefined);
    expect(asked).to.deep.equal(["hooks.example"]);
  });

  it("refuses a name when any address it resolves to is private, without naming the address", async () => {
    const { policy } = policyResolving({ "split.example": ["93.184.216.34", "10.1.2.3"] });
    const refused = await refusalOf(policy, "https://split.example/in");
    expect(refused?.kind).to.equal("address");
    expect(refused?.message).to.equal(
      "outbound request to split.example refused: it resolves to a private address, and " +
        "private networks are not allowed " +
        "(the operator can allow this host with SITEVOICE_OUTBOUND_ALLOW)",
    );
  });

  it("refuses a private, loopback or link-local IP literal without resolving anything", async () => {
    const { policy, asked } = policyResolving({});
    expect((await refusalOf(policy, "https://10.0.0.5/in"))?.message).to.include(
      "10.0.0.5 is a private address",
    );
    expect((await refusalOf(policy, "https://[::1]:8443/in"))?.message).to.include(
      "::1 is a loopback address",
    );
    expect((await refusalOf(policy, "https://169.254.1.1/in"))?.message).to.include(
      "169.254.1.1 is a link-local address",
    );
    // The URL parser writes 0x7f.1 as 127.0.0.1: what is checked is what would be connected to.
    expect((await refusalOf(policy, "https://0x7f.1/in"))?.message).to.include(
      "127.0.0.1 is a loopback address",
    );
    expect(asked).to.deep.equal([]);
  });

  it("refuses a metadata address, by literal or by name, even with private networks allowed", async () => {
    const { policy } = policyResolving(
      { "metadata.internal": ["169.254.169.254"] },
      { allowPrivateNetworks: true },
    );
    expect((await refusalOf(policy, "http://169.254.169.254/latest"))?.kind).to.equal("metadata");
    expect((await refusalOf(policy, "https://metadata.internal/"))?.kind).to.equal("metadata");
  });

  it("lets private destinations through when private networks are allowed", async () => {
    const { policy } = policyResolving(
      { localhost: ["127.0.0.1", "::1"] },
      { allowPrivateNetworks: true },
    );
    expect(await refusalOf(policy, "http://localhost:3000/in")).to.equal(undefined);
    expect(await refusalOf(policy, "https://10.0.0.5/in")).to.equal(undefined);
  });

  it("lets an allow-list entry through, on the URL's port (443 or 80 unless it names one)", async () => {
    const { policy } = policyResolving(
      { "hooks.internal": ["10.0.0.7"] },
      { allow: "hooks.internal:443,10.0.0.5:8080" },
    );
    expect(await refusalOf(policy, "https://hooks.internal/in")).to.equal(undefined);
    expect((await refusalOf(policy, "https://hooks.internal:8443/in"))?.kind).to.equal("address");
    expect(await refusalOf(policy, "https://10.0.0.5:8080/in")).to.equal(undefined);
    expect((await refusalOf(policy, "https://10.0.0.5/in"))?.kind).to.equal("address");
  });

  it("lets a name that does not resolve through: the connection is checked when it is made", async () => {
    const { policy, asked } = policyResolving({});
    expect(await refusalOf(policy, "https://nowhere.invalid/in")).to.equal(undefined);
    expect(asked).to.deep.equal(["nowhere.invalid"]);
  });

  it("lets a name through when the resolver does not answer in time", async () => {
    const policy = new OutboundPolicy({
      allowPrivateNetworks: false,
      resolve: () => new Promise<ResolvedAddress[]>(() => undefined),
    });
    const started = Date.now();
    expect(await refusalOf(policy, "https://slow.example/in", 50)).to.equal(undefined);
    expect(Date.now() - started).to.be.below(2_000);
  });
});
