/**
 * "A person, please" end to end in headless Chromium: the agent's request_callback during a voice
 * call, and the panel's "Talk to a person" form without any call, each become a callback lead
 * (`source: "callback"`, the reason, the conversation so far), a mail to the workspace's contact
 * address received by a real SMTP server, and a signed `lead.captured` webhook with
 * `data.callback: true` received by a real HTTP receiver.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import type { RealtimeCall } from "./helpers/realtime-call.ts";
import { smtpServer } from "./helpers/smtp-server.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";
import { openPage, startWidgetHarness, type WidgetHarness } from "./helpers/widget-harness.ts";

const CONTACT = "owner@trattoria.example";
const STATUS = "sitevoice-widget .status";
const FORM = "sitevoice-widget form.callback";

/** A mail's text part, its quoted-printable soft breaks and escapes undone. */
function textOf(raw: string): string {
  return raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe("a person, please: callbacks through the widget", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  let mailbox: Awaited<ReturnType<typeof smtpServer>>;
  let receiver: Receiver;
  let workspaceId: string;

  before(async function () {
    mailbox = await smtpServer();
    receiver = await startReceiver();
    harness = await startWidgetHarness(this, {
      env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, SITEVOICE_JOBS: "on" },
    });
    const { service } = harness;
    workspaceId = (await service.store.sites.get(harness.siteId))!.workspace_id;
    await service.store.workspaces.setContactEmail(workspaceId, CONTACT);
    await addEndpoint(service.store, service.ring, {
      workspaceId,
      url: receiver.url,
      events: ["lead.captured"],
    });
  });
  after(async () => {
    await harness?.close();
    await receiver?.close();
    await mailbox?.close();
  });

  /** The mail and the webhook payload of the lead `leadId`, once both have arrived. */
  async function deliveredFor(leadId: string) {
    await waitUntil("the mail", () => mailbox.received.some((m) => textOf(m.raw).includes(leadId)));
    const payloadOf = () =>
      receiver
        .payloads()
        .find((p) => (p.data as { lead?: { id?: string } } | undefined)?.lead?.id === leadId);
    await waitUntil("the webhook", () => payloadOf() !== undefined);
    const mail = mailbox.received.find((m) => textOf(m.raw).includes(leadId))!;
    return { mail, text: textOf(mail.raw), payload: payloadOf()! };
  }

  async function leadsOfSite() {
    return harness.service.store.leads.list(workspaceId, { limit: 100, siteId: harness.siteId });
  }

  async function storedTurns(leadId: string) {
    const stored = await harness.service.store.leads.get(leadId);
    return (JSON.parse(stored?.turns ?? "[]") as { role: string; text?: string }[]).map(
      ({ role, text }) => `${role} ${text ?? ""}`.trim(),
    );
  }

  it("the agent's request during a call: the lead with the transcript, the mail and the webhook", async () => {
    const { page, ready, context } = await openPage(harness.browser, `${harness.site.origin}/`);
    await ready();
    const calls = harness.openai.calls.calls.length;
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator("sitevoice-widget .notice button.primary").click();
    await waitUntil("the call", () => harness.openai.calls.calls.length > calls);
    const call: RealtimeCall = harness.openai.calls.calls.at(-1)!;
    await call.opened;
    await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    call.visitorSays("Can someone call me about a party of twenty?");
    await call.assistantSays("Of course, I can ask someone to call you back.");
    const answer = (await call.callFunction("request_callback", {
      name: "Grace Hopper",
      phone: "+1 212 555 0199",
      reason: "A party of twenty on Saturday",
    })) as { requested: boolean; lead_id: string };
    expect(answer.requested).to.equal(true);
    expect(await storedTurns(answer.lead_id)).to.deep.equal([
      "visitor Can someone call me about a party of twenty?",
      "assistant Of course, I can ask someone to call you back.",
      "function",
    ]);
    const { mail, text, payload } = await deliveredFor(answer.lead_id);
    expect(mail.to).to.deep.equal([CONTACT]);
    expect(text).to.contain("Reason: A party of twenty on Saturday");
    expect(text).to.contain("Visitor: Can someone call me about a party of twenty?");
    expect(payload.type).to.equal("lead.captured");
    expect(payload.data).to.include({ callback: true, reason: "A party of twenty on Saturday" });
    await context.close();
  });

  /** Opens the panel for typing (no call), then the "Talk to a person" form. */
  async function openForm(): Promise<{ page: Page; close(): Promise<void> }> {
    const { page, ready, context } = await openPage(harness.browser, `${harness.site.origin}/`);
    await ready();
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator("sitevoice-widget .notice button.typing").click();
    await page.locator("sitevoice-widget button.person").click();
    await page.locator(FORM).waitFor();
    return { page, close: () => context.close() };
  }

  it("the panel's form without any call: the lead, the mail and the webhook, and no voice session", async () => {
    const minted = harness.openai.requests.length;
    const { page, close } = await openForm();
    await page.locator(`${FORM} input[name=name]`).fill("Alan Turing");
    await page.locator(`${FORM} input[name=email]`).fill("alan@example.com");
    await page.locator(`${FORM} input[name=reason]`).fill("Catering for a conference");
    await page.locator(`${FORM} button[type=submit]`).click();
    await page.locator(STATUS).filter({ hasText: "will get back to you" }).waitFor();
    await waitUntil("the lead", async () =>
      (await leadsOfSite()).some((l) => l.email === "alan@example.com"),
    );
    const lead = (await leadsOfSite()).find((l) => l.email === "alan@example.com")!;
    expect(lead).to.include({
      source: "callback",
      name: "Alan Turing",
      reason: "Catering for a conference",
    });
    const { mail, payload } = await deliveredFor(lead.id);
    expect(mail.to).to.deep.equal([CONTACT]);
    expect(payload.data).to.include({ callback: true, reason: "Catering for a conference" });
    // A form needs no voice provider: nothing was minted at OpenAI.
    expect(harness.openai.requests.length).to.equal(minted);
    await close();
  });

  it("the form says what is missing in an alert and sends nothing", async () => {
    const { page, close } = await openForm();
    const before = (await leadsOfSite()).length;
    await page.locator(`${FORM} input[name=name]`).fill("Alan Turing");
    await page.locator(`${FORM} button[type=submit]`).click();
    const alert = page.locator(`${FORM} [role=alert]`);
    await alert.filter({ hasText: "phone number or an email address" }).waitFor();
    expect(await page.locator(`${FORM} input[name=phone]`).getAttribute("aria-invalid")).to.equal(
      "true",
    );
    expect((await leadsOfSite()).length).to.equal(before);
    await close();
  });
});
