/**
 * Visible focus in the widget: each control, reached by Tab, shows an outline (or a box shadow),
 * in each state it appears in: the launcher, the notice, a voice call (with a line of captions,
 * so the log is there to scroll), and the callback form.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import {
  CAPTIONS,
  chooseTyping,
  focusOn,
  startVoiceCall,
  tabTo,
  visit,
} from "./helpers/widget-states.ts";
import {
  startWidgetHarness,
  type OpenedPage,
  type WidgetHarness,
} from "./helpers/widget-harness.ts";

describe("visible focus in the widget", function () {
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

  /** Each state, and the controls (by their words, as `focused` gives them) it shows. */
  const STATES: { state: string; reach: (page: Page) => Promise<void>; controls: string[] }[] = [
    { state: "closed", reach: async () => undefined, controls: ["launcher"] },
    {
      state: "the notice",
      // By keyboard: focus a script gives after a click is, rightly, not shown as keyboard focus.
      reach: async (page) => {
        await tabTo(page, "launcher");
        await page.keyboard.press("Enter");
        await focusOn(page, "Start talking");
      },
      controls: ["close", "Start talking", "Type instead", "Not now"],
    },
    {
      state: "a voice call",
      reach: async (page) => {
        const call = await startVoiceCall(harness, page);
        call.visitorSays("Hello");
        await page.locator(`${CAPTIONS} .visitor`).waitFor();
      },
      controls: [
        "Hide captions",
        "captions",
        "sitevoice-message",
        "Send",
        "Mute",
        "End call",
        "Talk to a person",
        "Privacy",
      ],
    },
    {
      state: "the callback form",
      reach: async (page) => {
        await chooseTyping(page);
        await page.locator("sitevoice-widget button.person").click();
        await focusOn(page, "sitevoice-callback-name");
      },
      controls: [
        "sitevoice-callback-name",
        "sitevoice-callback-phone",
        "sitevoice-callback-email",
        "sitevoice-callback-reason",
        "Ask for a call back",
        "Cancel",
      ],
    },
  ];

  /** The focused element's outline and box shadow, as computed. */
  const focusStyle = (page: Page) =>
    page.evaluate(() => {
      const node = document.querySelector("sitevoice-widget")!.shadowRoot!.activeElement!;
      const style = getComputedStyle(node);
      return {
        outline: style.outlineStyle === "none" ? "none" : style.outlineWidth,
        shadow: style.boxShadow,
        focusVisible: node.matches(":focus-visible"),
      };
    });

  for (const { state, reach, controls } of STATES) {
    for (const control of controls) {
      it(`outlines ${control} when Tab reaches it (${state})`, async () => {
        opened = await visit(harness.browser, harness.site.origin);
        await reach(opened.page);
        await tabTo(opened.page, control);
        const style = await focusStyle(opened.page);
        expect(style.focusVisible, "matches :focus-visible").to.equal(true);
        expect(
          style.outline !== "none" && style.outline !== "0px" ? "outline" : style.shadow,
        ).to.not.equal("none");
      });
    }
  }
});
