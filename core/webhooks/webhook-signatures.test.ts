/**
 * Webhook signatures checked by independent verifiers: the Standard Webhooks library
 * (`standardwebhooks`) and @octokit/webhooks-methods' `verify`, and the Standard Webhooks
 * specification's published test vector.
 */
import { verify } from "@octokit/webhooks-methods";
import { expect } from "chai";
import { Webhook } from "standardwebhooks";
import { isWebhookSecret, newWebhookSecret, signatureHeaders } from "./webhook-signatures.ts";

const body = Buffer.from(JSON.stringify({ id: "evt_1", type: "lead.captured", data: { n: "é" } }));

/** Standard Webhooks wants lower-case header names. */
const lower = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

describe("webhook signatures", () => {
  it("signs as the Standard Webhooks specification's test vector says", () => {
    const headers = signatureHeaders({
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      eventId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestampMs: 1614265330_000,
      body: Buffer.from('{"test": 2432232314}'),
    });
    expect(headers["webhook-signature"]).to.equal(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
    expect(headers["webhook-timestamp"]).to.equal("1614265330");
    expect(headers["X-Service-Timestamp"]).to.equal("1614265330000");
  });

  it("passes both independent verifiers, and fails them for another body or secret", async () => {
    const secret = newWebhookSecret();
    const now = Date.now();
    const headers = signatureHeaders({
      secrets: [secret],
      eventId: "evt_01abc",
      timestampMs: now,
      body,
    });
    const text = body.toString("utf8");

    expect(new Webhook(secret).verify(text, lower(headers))).to.deep.equal(JSON.parse(text));
    expect(await verify(secret, text, headers["X-Service-Signature"]!)).to.equal(true);

    const other = newWebhookSecret();
    expect(() => new Webhook(other).verify(text, lower(headers))).to.throw();
    expect(await verify(other, text, headers["X-Service-Signature"]!)).to.equal(false);
    expect(() => new Webhook(secret).verify(`${text} `, lower(headers))).to.throw();
    expect(await verify(secret, `${text} `, headers["X-Service-Signature"]!)).to.equal(false);
  });

  it("signs with both secrets after a rotation: either verifies, X-Service-Signature the new", async () => {
    const [older, newer] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signatureHeaders({
      secrets: [newer, older],
      eventId: "evt_rotated",
      timestampMs: Date.now(),
      body,
    });
    const text = body.toString("utf8");
    expect(headers["webhook-signature"]!.split(" ")).to.have.length(2);
    expect(() => new Webhook(newer).verify(text, lower(headers))).not.to.throw();
    expect(() => new Webhook(older).verify(text, lower(headers))).not.to.throw();
    expect(await verify(newer, text, headers["X-Service-Signature"]!)).to.equal(true);
    expect(await verify(older, text, headers["X-Service-Signature"]!)).to.equal(false);
  });

  it("makes secrets of the documented shape, each different, and refuses to sign without one", () => {
    const first = newWebhookSecret();
    expect(first).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(isWebhookSecret(first)).to.equal(true);
    expect(newWebhookSecret()).to.not.equal(first);
    expect(isWebhookSecret("whsec_short")).to.equal(false);
    expect(isWebhookSecret("sk_live_abc")).to.equal(false);
    expect(() =>
      signatureHeaders({ secrets: [], eventId: "evt_x", timestampMs: 0, body }),
    ).to.throw("needs a secret");
    expect(() =>
      signatureHeaders({ secrets: ["not-a-secret"], eventId: "evt_x", timestampMs: 0, body }),
    ).to.throw("not a webhook secret");
  });
});
