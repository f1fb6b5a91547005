/**
 * The widget against axe-core's WCAG 2.1 A and AA rules (the pinned version, run in the page),
 * in each state a visitor meets it: closed, the notice, a voice call listening, captions with
 * both sides' words and a "Looked up" note, a text conversation, the callback form (and its
 * alert), and a refused microphone. Each at a light and a dark site colour, on a site of its own,
 * since the widget picks its text colours from the site's. And: with reduced motion asked for,
 * nothing moves.
 */
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { wcagViolations } from "./helpers/axe.ts";
import { launchChromium } from "./helpers/browser.ts";
import {
  CALLBACK,
  CAPTIONS,
  chooseTyping,
  MESSAGE,
  nextCallAfter,
  NOTICE_BUTTON,
  openNotice,
  startVoiceCall,
  STATUS,
  visit,
} from "./helpers/widget-states.ts";
import {
  startOtherSite,
  startWidgetHarness,
  type OpenedPage,
  type PageServer,
  type WidgetHarness,
} from "./helpers/widget-harness.ts";

/** axe looks at the widget only (its shadow root included): the test page is not under test. */
const WIDGET = "sitevoice-widget";
const COLOURS = { light: "#fde047", dark: "#1e3a8a" } as const;

describe("the widget's accessibility (axe-core, WCAG 2.1 AA)", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  /** A browser whose every permission prompt is refused: the microphone among them. */
  let denied: Browser;
  const sites = {} as Record<keyof typeof COLOURS, PageServer>;
  let opened: OpenedPage | undefined;

  before(async function () {
    harness = await startWidgetHarness(this);
    denied = await launchChromium({ microphone: "denied" });
    for (const [name, color] of Object.entries(COLOURS)) {
      sites[name as keyof typeof COLOURS] = await startOtherSite(harness, {
        appearance: { color, position: "bottom-right", size: "medium" },
        lead_capture: { enabled: true, fields: ["name", "email", "phone"] },
      });
    }
  });
  afterEach(async () => {
    await opened?.context.close();
    opened = undefined;
  });
  after(async () => {
    for (const site of Object.values(sites)) await site.close();
    await denied?.close();
    await harness?.close();
  });

  /** Each state, reached from a fresh page of `origin` in `browser`. */
  const STATES: Record<string, (page: Page) => Promise<void>> = {
    closed: async () => undefined,
    "the notice": (page) => openNotice(page),
    "a voice call, listening": async (page) => {
      await startVoiceCall(harness, page);
    },
    "captions with both sides' words and a Looked up note": async (page) => {
      const call = await startVoiceCall(harness, page);
      call.visitorSays("Do you have gnocchi?");
      await call.callFunction("search_database", { collection: "menu", query: "gnocchi" });
      await call.assistantSays("Yes, we have gnocchi.");
      await page.locator(`${CAPTIONS} .assistant`).waitFor();
      await page.locator(`${CAPTIONS} .note`).waitFor();
    },
    "a text conversation with a message and its answer": async (page) => {
      const calls = harness.openai.calls.calls.length;
      await chooseTyping(page);
      await page.locator(MESSAGE).fill("What's on the menu?");
      await page.locator(MESSAGE).press("Enter");
      const call = await nextCallAfter(harness, calls);
      await call.nextTyped();
      call.assistantWrites("Gnocchi and lasagne.");
      await page.locator(`${CAPTIONS} .assistant`).waitFor();
    },
    "the callback form": async (page) => {
      await chooseTyping(page);
      await page.locator("sitevoice-widget button.person").click();
      await page.locator(CALLBACK).waitFor();
    },
    "the callback form's alert of missing fields": async (page) => {
      await chooseTyping(page);
      await page.locator("sitevoice-widget button.person").click();
      await page.locator(`${CALLBACK} button[type=submit]`).click();
      await page.locator(`${CALLBACK} .problem`).waitFor();
    },
  };

  for (const [colour, hex] of Object.entries(COLOURS) as [keyof typeof COLOURS, string][]) {
    for (const [state, reach] of Object.entries(STATES)) {
      it(`has no violations: ${state}, at a ${colour} site colour (${hex})`, async () => {
        opened = await visit(harness.browser, sites[colour].origin);
        await reach(opened.page);
        expect(await wcagViolations(opened.page, WIDGET)).to.deep.equal([]);
      });
    }

    it(`has no violations: a refused microphone, at a ${colour} site colour (${hex})`, async () => {
      opened = await visit(denied, sites[colour].origin);
      await openNotice(opened.page);
      await opened.page.locator(NOTICE_BUTTON, { hasText: "Start talking" }).click();
      await opened.page.locator(STATUS).filter({ hasText: "type your question instead" }).waitFor();
      expect(await wcagViolations(opened.page, WIDGET)).to.deep.equal([]);
    });
  }

  describe("with reduced motion asked for", () => {
    const animationOf = (page: Page, selector: string, property: string) =>
      page
        .locator(selector)
        .evaluate((node, name) => getComputedStyle(node).getPropertyValue(name), property);

    it("the listening dot does not pulse", async () => {
      opened = await visit(harness.browser, sites.light.origin);
      await opened.page.emulateMedia({ reducedMotion: "reduce" });
      await startVoiceCall(harness, opened.page);
      expect(await animationOf(opened.page, `${STATUS} .dot`, "animation-name")).to.equal("none");
    });

    it("the launcher has no transition", async () => {
      opened = await visit(harness.browser, sites.light.origin);
      await opened.page.emulateMedia({ reducedMotion: "reduce" });
      const launcher = "sitevoice-widget button.launcher";
      expect(await animationOf(opened.page, launcher, "transition-duration")).to.equal("0s");
    });
  });
});
