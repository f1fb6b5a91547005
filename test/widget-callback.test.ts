/**
 * request_callback through the widget in headless Chromium, over WebRTC to the OpenAI stand-in:
 * the agent's call becomes a signed lead with `source: "callback"`, the reason and the turns of
 * the conversation so far, as the service stores it: its latest 30 turns, each text at most 600
 * characters.
 */
import { expect } from "chai";
import { waitUntil } from "./helpers/wait-until.ts";
import type { RealtimeCall } from "./helpers/realtime-call.ts";
import { openPage, startWidgetHarness, type WidgetHarness } from "./helpers/widget-harness.ts";

const STATUS = "sitevoice-widget .status";
const LONG = "word ".repeat(140);

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
    for (let n = 1; n <= 30; n++) call.visitorSays(`Line ${n}`);
    call.visitorSays(LONG);
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

  /** The stored lead's turns, without their times. */
  async function storedTurns() {
    const stored = await harness.service.store.leads.get(answer.lead_id);
    return (JSON.parse(stored!.turns!) as Record<string, unknown>[]).map(({ at: _at, ...t }) => t);
  }

  it("carries the latest 30 turns of the conversation", async () => {
    const turns = await storedTurns();
    expect(turns).to.have.length(30);
    expect(turns[0]).to.deep.equal({ role: "visitor", text: "Line 5" });
  });

  it("carries both sides' words, and the function's name only", async () => {
    expect((await storedTurns()).slice(-3)).to.deep.equal([
      { role: "visitor", text: "Can I talk to a person about my booking?" },
      { role: "assistant", text: "Of course. Someone can call you back." },
      { role: "function", name: "request_callback" },
    ]);
  });

  it("cuts a turn's text to 600 characters", async () => {
    const long = (await storedTurns()).at(-4);
    expect(long).to.deep.equal({ role: "visitor", text: `${LONG.slice(0, 599)}…` });
  });
});
