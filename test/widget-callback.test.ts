/**
 * request_callback through the widget in headless Chromium, over WebRTC to the OpenAI stand-in:
 * the agent's call becomes a signed lead with `source: "callback"`, the reason and the turns of
 * the conversation so far, as the service stores it.
 */
import { expect } from "chai";
import { waitUntil } from "./helpers/wait-until.ts";
import type { RealtimeCall } from "./helpers/realtime-call.ts";
import { openPage, startWidgetHarness, type WidgetHarness } from "./helpers/widget-harness.ts";

const STATUS = "sitevoice-widget .status";

describe("a callback request through the widget", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  let call: RealtimeCall;
  let answer: { requested: boolean; lead_id: string };

  before(async function () {
    harness = await startWidgetHarness(this);
    const { page, ready } = await openPage(harness.browser, `${harness.site.origin}/`);
    await ready();
    const calls = harness.openai.calls.calls.length;
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator("sitevoice-widget .notice button.primary").click();
    call = await harness.openai.calls.nextCall();
    await waitUntil("the new call", () => harness.openai.calls.calls.length > calls);
    await call.opened;
    await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    call.visitorSays("Can I talk to a person about my booking?");
    await call.assistantSays("Of course. Someone can call you back.");
    await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    answer = (await call.callFunction("request_callback", {
      name: "Ada Lovelace",
      phone: "+44 20 7946 0958",
      reason: "Wants to change\na booking",
    })) as typeof answer;
  });
  after(() => harness?.close());

  it("answers the agent with the lead's id", () => {
    expect(answer.requested).to.equal(true);
    expect(answer.lead_id).to.match(/^lead_/);
  });

  it("stores a callback lead with the contact and the reason on one line", async () => {
    const stored = await harness.service.store.leads.get(answer.lead_id);
    expect(stored).to.include({
      site_id: harness.siteId,
      source: "callback",
      name: "Ada Lovelace",
      phone: "+44 20 7946 0958",
      reason: "Wants to change a booking",
    });
  });

  it("carries the conversation so far: both sides' words, and the function's name only", async () => {
    const stored = await harness.service.store.leads.get(answer.lead_id);
    const turns = JSON.parse(stored!.turns!) as Record<string, unknown>[];
    expect(turns.map(({ at: _at, ...turn }) => turn)).to.deep.equal([
      { role: "visitor", text: "Can I talk to a person about my booking?" },
      { role: "assistant", text: "Of course. Someone can call you back." },
      { role: "function", name: "request_callback" },
    ]);
  });
});
