/**
 * Deliveries go through the outbound guard, which customers cannot talk past with a webhook URL:
 * under a production policy (no private networks) an endpoint on a private address, or on a name
 * that resolves to one, is refused at send time and nothing reaches it; a metadata address is
 * refused even where private networks are allowed; a redirect, wherever it points, is never
 * followed.
 */
import { expect } from "chai";
import { parseOutboundAllowList } from "../core/security/outbound-allow-list.ts";
import { OutboundPolicy } from "../core/security/outbound-policy.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { webhookHarness, type Harness } from "./helpers/webhook-harness.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";

describe("webhook delivery and the SSRF guard", function () {
  let harness: Harness | undefined;
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    await receiver.close();
  });

  /** The first attempt's log entry for a delivery to `url` under `policy`. */
  async function attemptTo(url: string, policy?: OutboundPolicy) {
    harness = await webhookHarness({ policy });
    const { id } = await addEndpoint(harness.store, harness.ring, {
      workspaceId: harness.workspaceId,
      url,
      events: ["lead.captured"],
    });
    await harness.record();
    await harness.dispatcher.runDue();
    const [row] = await harness.store.webhookDeliveries.page(id, { limit: 1 });
    const [attempt] = await harness.store.webhookDeliveries.attemptsOf([row!.id]);
    expect(row!.status).to.equal("pending");
    return attempt!;
  }

  /** A production policy; `addresses` gives host names their one address. */
  const production = (addresses?: Record<string, string>) =>
    new OutboundPolicy({
      allowPrivateNetworks: false,
      ...(addresses === undefined ? {} : { resolve: resolver(addresses) }),
    });
  function resolver(addresses: Record<string, string>) {
    return async (hostname: string) => {
      const address = addresses[hostname];
      if (address === undefined) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
      return [{ address, family: address.includes(":") ? 6 : 4 }];
    };
  }

  it("refuses a loopback endpoint under a production policy", async () => {
    const attempt = await attemptTo(receiver.url, production());
    expect(attempt.status_code).to.equal(null);
    expect(attempt.error).to.match(/^outbound request to 127\.0\.0\.1 refused: .*loopback/);
    expect(receiver.received).to.have.length(0);
  });

  it("refuses a name that resolves to a private address", async () => {
    const policy = production({ "hooks.customer.test": "10.0.0.7" });
    const attempt = await attemptTo("https://hooks.customer.test/in", policy);
    expect(attempt.error).to.match(
      /^outbound request to hooks\.customer\.test refused: it resolves to a private/,
    );
  });

  it("refuses a cloud metadata address even where private networks are allowed", async () => {
    const attempt = await attemptTo("http://169.254.169.254/latest/meta-data/");
    expect(attempt.error).to.match(/metadata/);
  });

  it("never follows a redirect, even to an address the policy allows", async () => {
    const policy = new OutboundPolicy({
      allowPrivateNetworks: false,
      allow: parseOutboundAllowList(`127.0.0.1:${receiver.port}`),
    });
    receiver.answer = (n) =>
      n === 0
        ? { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } }
        : { status: 200 };
    const attempt = await attemptTo(receiver.url, policy);
    expect(attempt.status_code).to.equal(302);
    expect(attempt.error).to.equal(
      "redirect to http://169.254.169.254/latest/meta-data/ not followed",
    );
    expect(receiver.received).to.have.length(1);
  });
});
