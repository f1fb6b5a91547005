/**
 * The widget in the site's language, in Chromium: a German site's launcher, notice, call states
 * and errors in German, an Arabic site's panel laid out right to left, a site's own override
 * winning over its language's string, and English for a language the widget has no strings for.
 * Each test makes a site of its own.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import { launchChromium } from "./helpers/browser.ts";
import {
  openPage,
  startOtherSite,
  startWidgetHarness,
  type PageServer,
  type WidgetHarness,
} from "./helpers/widget-harness.ts";

const LAUNCHER = "sitevoice-widget button.launcher";
const ROOT = "sitevoice-widget .root";
const PANEL = "sitevoice-widget .panel";
const NOTICE = "sitevoice-widget .notice";
const STATUS = "sitevoice-widget .status";

describe("the widget in the site's language", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  const servers: PageServer[] = [];

  before(async function () {
    harness = await startWidgetHarness(this);
  });
  after(async () => {
    for (const server of servers) await server.close();
    await harness?.close();
  });

  /** A new site with `fields`, its home page open in a fresh context, the notice showing. */
  async function openNotice(fields: Record<string, unknown>) {
    const site = await startOtherSite(harness, fields);
    servers.push(site);
    const opened = await openPage(harness.browser, `${site.origin}/`);
    expect((await opened.ready()).shown).to.equal(true);
    await opened.page.locator(LAUNCHER).click();
    await opened.page.locator(NOTICE).waitFor({ state: "visible" });
    return opened;
  }

  const textOf = (page: Page, selector: string) =>
    page.locator(selector).evaluate((node) => node.textContent ?? "");

  it("shows a German site's launcher label, notice and buttons in German", async () => {
    const { page, context } = await openNotice({ language: "de" });
    expect(await page.locator(LAUNCHER).getAttribute("aria-label")).to.equal(
      "Mit dem Sprachassistenten von Trattoria Test sprechen",
    );
    expect(await textOf(page, `${NOTICE} p:first-child`)).to.equal(
      "Was Sie dem Assistenten von Trattoria Test sagen oder schreiben, wird vom Unternehmen und " +
        "seinem KI-Anbieter verarbeitet, um Ihnen zu antworten; Gesprochenes wird transkribiert, " +
        "Audio wird nicht aufgezeichnet. Zum Sprechen brauchen Sie Ihr Mikrofon.",
    );
    expect(await textOf(page, `${NOTICE} button.primary`)).to.equal("Gespräch starten");
    expect(await textOf(page, `${NOTICE} button.decline`)).to.equal("Nicht jetzt");
    expect(await page.locator(`${PANEL} button.close`).getAttribute("aria-label")).to.equal(
      "Schließen",
    );
    await page.locator(`${NOTICE} .visitor`).waitFor({ state: "visible" });
    expect(await textOf(page, `${NOTICE} .visitor`)).to.match(
      /^Ihre Besucher-ID: [0-9a-f]{64} – nennen Sie sie, um von diesem Unternehmen/,
    );
    expect(await page.locator(ROOT).getAttribute("lang")).to.equal("de");
    await context.close();
  });

  it("shows a German site's call states and End call button in German", async () => {
    const { page, context } = await openNotice({ language: "de" });
    await page.locator(`${NOTICE} button.primary`).click();
    await page.locator(STATUS).filter({ hasText: "Ich höre zu. Sprechen Sie einfach." }).waitFor();
    expect(await textOf(page, "sitevoice-widget button.hangup")).to.equal("Gespräch beenden");
    expect(await textOf(page, "sitevoice-widget button.privacy")).to.equal("Datenschutz");
    await page.locator("sitevoice-widget button.hangup").click();
    await page.locator(STATUS).filter({ hasText: "Gespräch beendet." }).waitFor();
    await context.close();
  });

  it("says in German that the microphone was refused", async () => {
    const site = await startOtherSite(harness, { language: "de" });
    servers.push(site);
    const denied = await launchChromium({ microphone: "denied" });
    try {
      const { page } = await openPage(denied, `${site.origin}/`);
      await page.locator(LAUNCHER).click();
      await page.locator(`${NOTICE} button.primary`).click();
      await page.locator(`${STATUS}.error`).waitFor();
      expect(await textOf(page, STATUS)).to.equal(
        "Ihr Browser hat das Mikrofon nicht erlaubt. Erlauben Sie es für diese Website (das " +
          "Symbol in der Adressleiste), um zu sprechen, oder schreiben Sie Ihre Frage.",
      );
    } finally {
      await denied.close();
    }
  });

  it("lays an Arabic site's panel out right to left, mirrored", async () => {
    const { page, context } = await openNotice({ language: "ar" });
    expect(await page.locator(ROOT).getAttribute("dir")).to.equal("rtl");
    expect(await page.locator(ROOT).getAttribute("lang")).to.equal("ar");
    // No helper function inside: the test's compiler would name it with a function the page lacks.
    const layout = await page.locator(PANEL).evaluate((panel) => ({
      direction: getComputedStyle(panel).direction,
      panel: panel.getBoundingClientRect().toJSON() as DOMRect,
      title: panel.querySelector(".head span")!.getBoundingClientRect().toJSON() as DOMRect,
      close: panel.querySelector(".close")!.getBoundingClientRect().toJSON() as DOMRect,
      start: panel.querySelector(".notice .primary")!.getBoundingClientRect().toJSON() as DOMRect,
      second: panel.querySelector(".notice .typing")!.getBoundingClientRect().toJSON() as DOMRect,
    }));
    expect(layout.direction).to.equal("rtl");
    // The close button at the start of a right-to-left line: the left, the title on the right.
    expect(layout.close.right).to.be.at.most(layout.title.left);
    expect(layout.title.right).to.be.above(layout.panel.right - 30);
    // The first button at the right, the second to its left.
    expect(layout.second.right).to.be.at.most(layout.start.left);
    expect(await textOf(page, `${NOTICE} button.primary`)).to.equal("ابدأ التحدث");
    await context.close();
  });

  it("lays a German site's panel out left to right", async () => {
    const { page, context } = await openNotice({ language: "de" });
    expect(await page.locator(ROOT).getAttribute("dir")).to.equal("ltr");
    await context.close();
  });

  it("shows the site's own override over its language's string", async () => {
    const { page, context } = await openNotice({
      language: "de",
      appearance: { strings: { start: "Jetzt fragen", launcher: "Fragen Sie {business}" } },
    });
    expect(await textOf(page, `${NOTICE} button.primary`)).to.equal("Jetzt fragen");
    expect(await textOf(page, `${NOTICE} button.decline`)).to.equal("Nicht jetzt");
    expect(await page.locator(LAUNCHER).getAttribute("aria-label")).to.equal(
      "Fragen Sie Trattoria Test",
    );
    await context.close();
  });

  it("falls back to English for a language it has no strings for", async () => {
    const { page, context } = await openNotice({ language: "ja" });
    expect(await page.locator(LAUNCHER).getAttribute("aria-label")).to.equal(
      "Talk to Trattoria Test's voice assistant",
    );
    expect(await textOf(page, `${NOTICE} button.primary`)).to.equal("Start talking");
    expect(await page.locator(ROOT).getAttribute("dir")).to.equal("ltr");
    await context.close();
  });
});
