/**
 * The README's pictures of the widget's modes, taken on the demo page in headless Chromium with
 * the OpenAI stand-in: a voice call with captions, a text conversation, the "Talk to a person"
 * form, and a refused microphone offering typing. Each test checks what the picture must show
 * before taking it; `UPDATE_SCREENSHOTS=1` writes them to docs/screenshots/, otherwise to
 * test/.artifacts/.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { launchChromium } from "./helpers/browser.ts";
import { nextCallAfter } from "./helpers/widget-states.ts";
import { openPage, startWidgetHarness, type WidgetHarness } from "./helpers/widget-harness.ts";

const SITE_ID = "luigis-trattoria";
const STATUS = "sitevoice-widget .status";
const CAPTIONS = "sitevoice-widget .captions";

describe("the widget's modes, photographed for the README", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  let denied: Browser;
  const dir =
    process.env.UPDATE_SCREENSHOTS === "1"
      ? path.join("docs", "screenshots")
      : path.join("test", ".artifacts");

  before(async function () {
    harness = await startWidgetHarness(this);
    denied = await launchChromium({ microphone: "denied" });
    const { service } = harness;
    await service.sites.create(operatorPrincipal(await service.workspace(), "test"), {
      site_id: SITE_ID,
      business_name: "Luigi's Trattoria",
      business_description: "Family-run Italian trattoria since 1987.",
      domain: new URL(service.url).host,
      appearance: { color: "#b91c1c", position: "bottom-right", size: "large" },
      lead_capture: { enabled: true, fields: ["name", "email", "phone"] },
      adapter: {
        type: "inline",
        config: { records: { menu: [{ name: "Gnocchi alla sorrentina" }] } },
        collections: { menu: { source: "menu", searchable_fields: ["name"] } },
      },
    });
    mkdirSync(dir, { recursive: true });
  });
  after(async () => {
    await denied?.close();
    await harness?.close();
  });

  async function demo(browser: Browser): Promise<{ page: Page; close(): Promise<void> }> {
    const opened = await openPage(browser, `${harness.service.url}/demo/${SITE_ID}`);
    expect((await opened.ready()).shown).to.equal(true);
    await opened.page.setViewportSize({ width: 900, height: 680 });
    return { page: opened.page, close: () => opened.context.close() };
  }

  async function photograph(page: Page, name: string): Promise<void> {
    const image = await page.screenshot({ path: path.join(dir, `widget-${name}.png`) });
    expect(image.subarray(1, 4).toString("latin1")).to.equal("PNG");
  }

  it("a voice call with captions", async () => {
    const { page, close } = await demo(harness.browser);
    const calls = harness.openai.calls.calls.length;
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator("sitevoice-widget .notice button.primary").click();
    const call = await nextCallAfter(harness, calls);
    await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    call.visitorSays("Do you have gnocchi tonight?");
    await call.callFunction("search_database", { collection: "menu", query: "gnocchi" });
    await call.assistantSays("Yes: gnocchi alla sorrentina, baked with tomato and mozzarella.");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    await photograph(page, "captions");
    await close();
  });

  it("a text conversation", async () => {
    const { page, close } = await demo(denied);
    const calls = harness.openai.calls.calls.length;
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator("sitevoice-widget .notice button.typing").click();
    await page.locator("sitevoice-widget .composer input").fill("Can I bring my dog?");
    await page.locator("sitevoice-widget .composer input").press("Enter");
    const call = await nextCallAfter(harness, calls);
    await call.nextTyped();
    call.assistantWrites("Well-behaved dogs are welcome on the terrace.");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    await photograph(page, "text");
    await close();
  });

  it("the Talk to a person form", async () => {
    const { page, close } = await demo(harness.browser);
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator("sitevoice-widget .notice button.typing").click();
    await page.locator("sitevoice-widget button.person").click();
    await page.locator("sitevoice-widget form.callback input[name=name]").fill("Ada Lovelace");
    await page.locator("sitevoice-widget form.callback input[name=phone]").fill("+44 20 7946 0958");
    await page
      .locator("sitevoice-widget form.callback input[name=reason]")
      .fill("A table for twelve on Friday");
    await photograph(page, "callback");
    await close();
  });

  it("a refused microphone, typing offered", async () => {
    const { page, close } = await demo(denied);
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator("sitevoice-widget .notice button.primary").click();
    await page.locator(STATUS).filter({ hasText: "did not allow the microphone" }).waitFor();
    await photograph(page, "microphone-refused");
    await close();
  });
});
