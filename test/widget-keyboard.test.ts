/**
 * The widget by keyboard alone (page.keyboard, no clicks), in headless Chromium over WebRTC to the
 * OpenAI stand-in: Tab reaches the launcher and Enter opens the notice on its first button; Tab
 * goes through the panel in the order it is laid out, and stays in it; Escape closes it and gives
 * focus back to the launcher; and the three flows (a voice call, typing, the callback form) can
 * be walked through without a mouse.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import { waitUntil } from "./helpers/wait-until.ts";
import {
  CALLBACK,
  CAPTIONS,
  focusOn,
  focused,
  listening,
  nextCallAfter,
  STATUS,
  tabTo,
  visit,
} from "./helpers/widget-states.ts";
import {
  startWidgetHarness,
  type OpenedPage,
  type WidgetHarness,
} from "./helpers/widget-harness.ts";

describe("the widget by keyboard", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  let opened: OpenedPage | undefined;

  before(async function () {
    harness = await startWidgetHarness(this);
  });
  afterEach(async () => {
    await opened?.context.close();
    opened = undefined;
  });
  after(() => harness?.close());

  /** The site's page, and the notice opened from the launcher by Tab and Enter. */
  async function noticeByKeyboard(): Promise<Page> {
    opened = await visit(harness.browser, harness.site.origin);
    const { page } = opened;
    await tabTo(page, "launcher");
    await page.keyboard.press("Enter");
    await focusOn(page, "Start talking");
    return page;
  }

  /** "Type instead" at the notice, by keyboard: the text box waits. */
  async function typingByKeyboard(): Promise<Page> {
    const page = await noticeByKeyboard();
    await tabTo(page, "Type instead");
    await page.keyboard.press("Enter");
    await page.locator(STATUS).filter({ hasText: "Type your message" }).waitFor();
    return page;
  }

  /** Tab from the panel's first control round to it again: each control's box, in order. */
  async function tabCycle(page: Page): Promise<{ words: string; box: DOMRect }[]> {
    await tabTo(page, "close");
    const cycle = [];
    do {
      const box = await page.evaluate(() =>
        document
          .querySelector("sitevoice-widget")!
          .shadowRoot!.activeElement!.getBoundingClientRect()
          .toJSON(),
      );
      cycle.push({ words: await focused(page), box: box as DOMRect });
      await page.keyboard.press("Tab");
    } while (!(await focused(page)).startsWith("close") && cycle.length < 30);
    return cycle;
  }

  /** Pairs of controls where Tab goes up, or left on the same line (left to right text). */
  function outOfVisualOrder(cycle: { words: string; box: DOMRect }[]): string[] {
    const wrong = [];
    for (let i = 1; i < cycle.length; i++) {
      const [before, after] = [cycle[i - 1]!, cycle[i]!];
      const below = after.box.top >= before.box.bottom - 1;
      const sameLine = after.box.top < before.box.bottom && after.box.bottom > before.box.top;
      const rightOf = after.box.left >= before.box.right - 1;
      if (!below && !(sameLine && rightOf)) wrong.push(`${before.words} → ${after.words}`);
    }
    return wrong;
  }

  it("reaches the launcher by Tab, and Enter opens the notice with focus on its first button", async () => {
    const page = await noticeByKeyboard();
    expect(await focused(page)).to.include("Start talking");
  });

  it("goes through the notice by Tab in the order it is laid out", async () => {
    const page = await noticeByKeyboard();
    const cycle = await tabCycle(page);
    expect(cycle.map((c) => c.words.split(" ")[0])).to.deep.equal([
      "close",
      "primary",
      "secondary",
      "secondary",
    ]);
    expect(outOfVisualOrder(cycle)).to.deep.equal([]);
  });

  it("goes through the panel during a call by Tab in the order it is laid out", async () => {
    const page = await noticeByKeyboard();
    const calls = harness.openai.calls.calls.length;
    await page.keyboard.press("Enter");
    const call = await nextCallAfter(harness, calls);
    await listening(page);
    call.visitorSays("Hello");
    await page.locator(`${CAPTIONS} .visitor`).waitFor();
    const cycle = await tabCycle(page);
    expect(cycle.map((c) => c.words)).to.deep.equal([
      "close Close",
      "toggle Hide captions",
      "captions Conversation",
      "sitevoice-message Type a message",
      "primary Send",
      "secondary Mute",
      "hangup End call",
      "link person Talk to a person",
      "link privacy Privacy",
    ]);
    expect(outOfVisualOrder(cycle)).to.deep.equal([]);
  });

  it("keeps focus in the panel: Tab past the last control goes to the first, Shift+Tab back", async () => {
    const page = await noticeByKeyboard();
    await tabTo(page, "Not now");
    await page.keyboard.press("Tab");
    expect(await focused(page)).to.equal("close Close");
    await page.keyboard.press("Shift+Tab");
    expect(await focused(page)).to.include("Not now");
  });

  it("closes the panel on Escape and gives focus back to the launcher", async () => {
    const page = await noticeByKeyboard();
    await page.keyboard.press("Escape");
    await page.locator("sitevoice-widget .panel").waitFor({ state: "hidden" });
    expect(await focused(page)).to.include("launcher");
  });

  it("walks a voice call: Start talking, Mute toggles aria-pressed, End call", async () => {
    const page = await noticeByKeyboard();
    const calls = harness.openai.calls.calls.length;
    await page.keyboard.press("Enter");
    await nextCallAfter(harness, calls);
    await listening(page);
    expect(await focused(page), "focus after Start talking").to.not.equal("outside");
    const mute = page.locator("sitevoice-widget button", { hasText: "Mute" });
    await tabTo(page, "Mute");
    await page.keyboard.press("Enter");
    expect(await mute.getAttribute("aria-pressed")).to.equal("true");
    await page.keyboard.press("Space");
    expect(await mute.getAttribute("aria-pressed")).to.equal("false");
    await tabTo(page, "End call");
    await page.keyboard.press("Enter");
    await page.locator(STATUS).filter({ hasText: "Call ended." }).waitFor();
    expect(await focused(page), "focus after End call").to.not.equal("outside");
  });

  it("walks a text conversation: Type instead, a message and Enter, the answer shown", async () => {
    const calls = harness.openai.calls.calls.length;
    const page = await typingByKeyboard();
    expect(await focusOn(page, "sitevoice-message")).to.include("sitevoice-message");
    await page.keyboard.type("Do you have gnocchi?");
    await page.keyboard.press("Enter");
    const call = await nextCallAfter(harness, calls);
    expect(await call.nextTyped()).to.equal("Do you have gnocchi?");
    call.assistantWrites("Yes, we do.");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    expect(await page.locator(`${CAPTIONS} .assistant`).innerText()).to.equal(
      "Assistant Yes, we do.",
    );
  });

  it("walks the callback form: Talk to a person, the fields, Enter; the lead is stored as a callback", async () => {
    const page = await typingByKeyboard();
    await tabTo(page, "Talk to a person");
    await page.keyboard.press("Enter");
    expect(await focusOn(page, "callback-name")).to.include("sitevoice-callback-name");
    const name = `Grace ${Date.now().toString(36)}`;
    for (const words of [name, "+44 20 7946 0958", "grace@example.com", "A table for six"]) {
      await page.keyboard.type(words);
      await page.keyboard.press("Tab");
    }
    expect(await focused(page)).to.include("Ask for a call back");
    await page.keyboard.press("Enter");
    await page.locator(STATUS).filter({ hasText: "will get back to you" }).waitFor();
    const { workspace_id } = (await harness.service.store.sites.get(harness.siteId))!;
    const leadsNamed = async () =>
      (await harness.service.store.leads.list(workspace_id, { limit: 50 })).filter(
        (lead) => lead.name === name,
      );
    await waitUntil("the callback lead", async () => (await leadsNamed()).length > 0);
    expect((await leadsNamed()).map((lead) => lead.source)).to.deep.equal(["callback"]);
    expect(await focused(page), "focus after sending").to.not.equal("outside");
  });

  it("says what is missing when the callback form is sent empty, with focus on the first field to fix", async () => {
    const page = await typingByKeyboard();
    await tabTo(page, "Talk to a person");
    await page.keyboard.press("Enter");
    await tabTo(page, "Ask for a call back");
    await page.keyboard.press("Enter");
    await page.locator(`${CALLBACK} .problem`).waitFor();
    expect(await page.locator(`${CALLBACK} [role=alert]`).innerText()).to.include(
      "Please give your name",
    );
    expect(await focused(page)).to.include("sitevoice-callback-name");
  });
});
