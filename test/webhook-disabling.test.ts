/**
 * Disabling a failing endpoint, on a clock moved by hand over a real store, a real HTTP receiver
 * and a real SMTP server: every attempt failing 50 times in a row, or for 24 hours, disables the
 * endpoint once and mails its owner once; a 410 Gone disables it at once; an endpoint that
 * alternates success and failure is never disabled.
 */
import { expect } from "chai";
import { simpleParser } from "mailparser";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { webhookHarness, type Harness } from "./helpers/webhook-harness.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";
import { smtpServer, type Received as Mail } from "./helpers/smtp-server.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const OWNER = "owner@agency.test";

describe("disabling a failing webhook endpoint", function () {
  this.timeout(60_000);
  let harness: Harness;
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;

  beforeEach(async () => {
    smtp = await smtpServer();
    harness = await webhookHarness({ smtpPort: smtp.port, ownerEmail: OWNER });
    receiver = await startReceiver(() => ({ status: 500 }));
  });
  afterEach(async () => {
    await harness.close();
    await receiver.close();
    await smtp.close();
  });

  const endpoint = () =>
    addEndpoint(harness.store, harness.ring, {
      workspaceId: harness.workspaceId,
      url: receiver.url,
      events: ["lead.captured"],
    });
  const stored = async (id: string) => (await harness.store.webhookEndpoints.get(id))!;

  /** The mails received, parsed; waits a little for one under way. */
  async function mails(count: number): Promise<Awaited<ReturnType<typeof simpleParser>>[]> {
    const deadline = Date.now() + 5_000;
    while (smtp.received.length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return Promise.all(smtp.received.map((mail: Mail) => simpleParser(mail.raw)));
  }

  it("disables after 50 failed attempts in a row, once, with one mail to the owner", async () => {
    const { id } = await endpoint();
    for (let i = 0; i < 60; i++) await harness.record();
    await harness.dispatcher.runDue();
    expect(receiver.received).to.have.length(50);
    const row = await stored(id);
    expect(row).to.include({
      enabled: false,
      disabled_reason: "50 delivery attempts in a row failed",
      disabled_at: harness.clock.now,
    });
    // Nothing more goes out, however long the clock runs; no second mail.
    for (let h = 0; h < 30; h++) {
      harness.clock.now += HOUR;
      await harness.record();
      await harness.dispatcher.runDue();
    }
    expect(receiver.received).to.have.length(50);
    const received = await mails(1);
    expect(received).to.have.length(1);
    const [mail] = received;
    expect(mail!.to).to.deep.include({ text: OWNER });
    expect(mail!.subject).to.equal("Webhook endpoint disabled: 127.0.0.1:" + receiver.port);
    expect(mail!.text).to.include(id).and.include("50 delivery attempts in a row failed");
    expect(smtp.received[0]!.to).to.deep.equal([OWNER]);
  });

  it("disables once every attempt failed for 24 hours, though fewer than 50", async () => {
    const { id } = await endpoint();
    const start = harness.clock.now;
    for (let h = 0; h <= 26 * 60; h += 15) {
      harness.clock.now = start + h * MINUTE;
      if (h % (6 * 60) === 0) await harness.record();
      await harness.dispatcher.runDue();
    }
    const row = await stored(id);
    expect(row.enabled).to.equal(false);
    expect(row.disabled_reason).to.equal("every delivery attempt failed for 24 hours");
    expect(row.disabled_at! - start).to.be.within(24 * HOUR, 24 * HOUR + 15 * MINUTE);
    expect(receiver.received.length).to.be.below(50);
    expect(await mails(1)).to.have.length(1);
  });

  it("disables at once on 410 Gone", async () => {
    receiver.answer = () => ({ status: 410 });
    const { id } = await endpoint();
    await harness.record();
    await harness.record();
    await harness.dispatcher.runDue();
    expect(receiver.received).to.have.length(1);
    expect(await stored(id)).to.include({
      enabled: false,
      disabled_reason: "the receiver answered 410 Gone",
    });
    expect(await mails(1)).to.have.length(1);
  });

  it("never disables an endpoint that alternates success and failure", async () => {
    receiver.answer = (n) => ({ status: n % 2 === 0 ? 200 : 500 });
    const { id } = await endpoint();
    const start = harness.clock.now;
    for (let m = 0; m <= 26 * 60; m += 10) {
      harness.clock.now = start + m * MINUTE;
      await harness.record();
      await harness.dispatcher.runDue();
    }
    expect(receiver.received.length).to.be.above(156);
    const row = await stored(id);
    expect(row.enabled).to.equal(true);
    expect(row.consecutive_failures).to.be.below(2);
    expect(smtp.received).to.have.length(0);
  });
});
