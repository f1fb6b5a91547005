/**
 * The widget in Debian's headless Chromium, on pages served from test origins: where it shows and
 * where it does not, how it looks and behaves before a call, and the ways starting one fails that
 * a visitor must understand (microphone refused, the provider unavailable). The calls themselves
 * are in widget-call.test.ts.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { launchChromium } from "./helpers/browser.ts";
import {
  openPage,
  SITE_COLOR_RGB,
  startWidgetHarness,
  type WidgetHarness,
} from "./helpers/widget-harness.ts";

const LAUNCHER = "sitevoice-widget button.launcher";
const STATUS = "sitevoice-widget .status";

describe("the widget in a browser", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;

  before(async function () {
    harness = await startWidgetHarness(this);
  });
  after(() => harness?.close());

  it("shows the launcher in the site's colour, corner and size, in a shadow root both ways sealed", async () => {
    const { page, context, ready } = await openPage(harness.browser, `${harness.site.origin}/`);
    expect(await ready()).to.deep.equal({ site_id: harness.siteId, shown: true });
    const launcher = page.locator(LAUNCHER);
    const look = await launcher.evaluate((button) => {
      const style = getComputedStyle(button);
      const box = button.getBoundingClientRect();
      return { background: style.backgroundColor, radius: style.borderRadius, box };
    });
    // The page's `button {background: green !important}` does not reach inside.
    expect(look.background).to.equal(SITE_COLOR_RGB);
    expect(look.radius).to.equal("50%");
    expect(look.box.width).to.equal(64);
    expect(look.box.left).to.be.below(100);
    // And the widget's `.primary` does not reach the page's own button.
    const own = await page.locator("#own-button").evaluate((b) => getComputedStyle(b).color);
    expect(own).to.equal("rgb(1, 2, 3)");
    expect(await launcher.getAttribute("aria-label")).to.equal(
      "Talk to Trattoria Test's voice assistant",
    );
    expect(await launcher.getAttribute("aria-expanded")).to.equal("false");
    await context.close();
  });

  it("works from the keyboard: Tab to the launcher, Enter opens the notice, Escape closes it", async () => {
    const { page, context, ready } = await openPage(harness.browser, `${harness.site.origin}/`);
    await ready();
    await page.keyboard.press("Tab"); // the page's own button
    await page.keyboard.press("Tab"); // the launcher
    const focused = await page.evaluate(
      () => document.activeElement?.shadowRoot?.activeElement?.className,
    );
    expect(focused).to.equal("launcher");
    await page.keyboard.press("Enter");
    const notice = page.locator("sitevoice-widget .notice");
    await notice.waitFor({ state: "visible" });
    expect(await notice.textContent()).to.include("audio is not recorded");
    expect(await page.locator(LAUNCHER).getAttribute("aria-expanded")).to.equal("true");
    expect(await page.locator("sitevoice-widget .panel").getAttribute("role")).to.equal("dialog");
    await page.keyboard.press("Escape");
    await page.locator("sitevoice-widget .panel").waitFor({ state: "hidden" });
    // Declining is not accepting: nothing is stored, and the next press asks again.
    expect(await page.evaluate(() => localStorage.length)).to.equal(0);
    await context.close();
  });

  it("turns animations off for visitors who ask for reduced motion", async () => {
    const { page, context, ready } = await openPage(harness.browser, `${harness.site.origin}/`);
    await ready();
    await page.emulateMedia({ reducedMotion: "reduce" });
    const transition = await page
      .locator(LAUNCHER)
      .evaluate((b) => getComputedStyle(b).transitionDuration);
    expect(transition).to.equal("0s");
    await page.emulateMedia({ reducedMotion: "no-preference" });
    const moving = await page
      .locator(LAUNCHER)
      .evaluate((b) => getComputedStyle(b).transitionDuration);
    expect(moving).to.equal("0.15s");
    await context.close();
  });

  it("shows nothing on an origin the site does not list, warns its owner once, asks for no token", async () => {
    const opened = await openPage(harness.browser, `${harness.stranger.origin}/`);
    expect(await opened.ready()).to.deep.equal({
      site_id: harness.siteId,
      shown: false,
      reason: "origin_not_allowed",
    });
    expect(await opened.page.locator("sitevoice-widget").count()).to.equal(0);
    const ours = opened.warnings.filter((w) => w.startsWith("[Sitevoice]"));
    expect(ours).to.deep.equal([
      `[Sitevoice] ${harness.stranger.origin} is not a registered domain of the site ` +
        `"${harness.siteId}", so the widget stays hidden: add it to the site's domain or ` +
        "additional_domains.",
    ]);
    expect(opened.requests.filter((url) => url.includes("/token"))).to.deep.equal([]);
    await opened.context.close();
  });

  it("shows nothing on a page disabled_pages excludes", async () => {
    const opened = await openPage(harness.browser, `${harness.site.origin}/private/staff?x=1`);
    expect(await opened.ready()).to.deep.equal({
      site_id: harness.siteId,
      shown: false,
      reason: "page_excluded",
    });
    expect(await opened.page.locator("sitevoice-widget").count()).to.equal(0);
    await opened.context.close();
  });

  it("says the microphone was refused, and starts no session", async () => {
    const denied = await launchChromium({ microphone: "denied" });
    try {
      const opened = await openPage(denied, `${harness.site.origin}/`);
      await opened.ready();
      const minted = harness.openai.requests.length;
      await opened.page.locator(LAUNCHER).click();
      await opened.page.locator("sitevoice-widget .notice button.primary").click();
      const status = opened.page.locator(STATUS);
      await status.filter({ hasText: "did not allow the microphone" }).waitFor();
      expect(await status.getAttribute("class")).to.equal("status error");
      expect(opened.requests.filter((url) => url.includes("/token"))).to.deep.equal([]);
      expect(harness.openai.requests.length).to.equal(minted);
      // The notice was accepted all the same: the next press goes straight to the microphone.
      const notice = await opened.page.evaluate(() => Object.keys(localStorage));
      expect(notice).to.deep.equal([`service:notice:${harness.siteId}`]);
    } finally {
      await denied.close();
    }
  });

  it("says the assistant is unavailable when the token answers 503, and keeps nothing", async () => {
    const opened = await openPage(harness.browser, `${harness.site.origin}/`);
    await opened.ready();
    harness.openai.behaviour = "fail";
    try {
      const token = opened.page.waitForResponse((r) => r.url().endsWith("/token"));
      await opened.page.locator(LAUNCHER).click();
      await opened.page.locator("sitevoice-widget .notice button.primary").click();
      expect((await token).status()).to.equal(503);
      await opened.page.locator(STATUS).filter({ hasText: "not available right now" }).waitFor();
      expect(await opened.page.evaluate(() => sessionStorage.length)).to.equal(0);
      expect(await opened.page.locator("sitevoice-widget button.hangup").isVisible()).to.equal(
        false,
      );
    } finally {
      harness.openai.behaviour = "mint";
      await opened.context.close();
    }
  });

  it("says the assistant could not be reached when the provider refuses the call, and ends the session", async () => {
    const opened = await openPage(harness.browser, `${harness.site.origin}/`);
    await opened.ready();
    harness.openai.calls.behaviour = "fail";
    try {
      const token = opened.page.waitForResponse((r) => r.url().endsWith("/token"));
      await opened.page.locator(LAUNCHER).click();
      await opened.page.locator("sitevoice-widget .notice button.primary").click();
      const { session_id: sessionId } = (await (await token).json()).data;
      await opened.page.locator(STATUS).filter({ hasText: "could not be reached" }).waitFor();
      await opened.page.waitForFunction(() => sessionStorage.length === 0);
      let usage: Record<string, number> = {};
      for (let i = 0; usage.session_end === undefined && i < 50; i += 1) {
        await harness.service.events.flush();
        usage = await harness.service.store.events.countSessionUsage(sessionId);
        if (usage.session_end === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(usage).to.deep.equal({ session_start: 1, session_end: 1 });
    } finally {
      harness.openai.calls.behaviour = "answer";
      await opened.context.close();
    }
  });

  it("serves a demo page that embeds the widget, and photographs it mid-call", async () => {
    const { service, openai } = harness;
    const host = new URL(service.url).host;
    const siteId = "luigis-trattoria"; // the harness's database is its own
    await service.sites.create(operatorPrincipal(await service.workspace(), "test"), {
      site_id: siteId,
      business_name: "Luigi's Trattoria",
      business_description:
        "Family-run Italian trattoria since 1987: fresh pasta every morning, wood-fired pizza.",
      domain: host,
      appearance: { color: "#b91c1c", position: "bottom-right", size: "large" },
    });
    const opened = await openPage(harness.browser, `${service.url}/demo/${siteId}`);
    await opened.context.grantPermissions(["microphone"]);
    expect((await opened.ready()).shown).to.equal(true);
    await opened.page.setViewportSize({ width: 900, height: 620 });
    await opened.page.locator(LAUNCHER).click();
    await opened.page.locator("sitevoice-widget .notice button.primary").click();
    const call = await openai.calls.nextCall();
    await call.opened;
    await opened.page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    const dir = process.env.UPDATE_SCREENSHOTS === "1" ? "docs" : path.join("test", ".artifacts");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "widget-demo.png");
    const image = await opened.page.screenshot({ path: file });
    expect(image.subarray(1, 4).toString("latin1")).to.equal("PNG");
    await opened.page.locator("sitevoice-widget button.hangup").click();
    await opened.page.locator(STATUS).filter({ hasText: "Call ended" }).waitFor();
    await opened.context.close();
  });
});
