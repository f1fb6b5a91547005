/**
 * The visitor's ID in the widget's privacy notice, in Debian's headless Chromium: the notice shows
 * exactly the fingerprint the service computes for that browser (its address and user agent, by
 * the service's own code, not read back from the widget), which is the one its sessions are stored
 * under; the Privacy button shows it again, read-only, to a visitor who accepted the notice now or
 * on an earlier visit; and when the service cannot say it, the notice works without it.
 */
import { expect } from "chai";
import type { Page, Route } from "playwright-core";
import {
  openPage,
  startWidgetHarness,
  type OpenedPage,
  type WidgetHarness,
} from "./helpers/widget-harness.ts";

const LAUNCHER = "sitevoice-widget button.launcher";
const NOTICE = "sitevoice-widget .notice";
const VISITOR_LINE = "sitevoice-widget .notice .visitor";
const VISITOR_ID = "sitevoice-widget .notice .visitor code";
const PRIVACY = "sitevoice-widget button.privacy";
const STATUS = "sitevoice-widget .status";
const VISITOR_PATH = /\/v1\/[^/]+\/visitor$/;

const LINE_END = " — quote it to ask this business for a copy of your data or its deletion.";

describe("the visitor ID in the widget's privacy notice", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  let visitors = 0;

  before(async function () {
    harness = await startWidgetHarness(this);
  });
  after(() => harness?.close());

  /** A visitor from an address of its own (the token's and the ID's limits are per address). */
  async function visit(): Promise<OpenedPage & { ip: string }> {
    const ip = `192.0.2.${(visitors += 1)}`;
    const opened = await openPage(harness.browser, `${harness.site.origin}/`, { ip });
    await opened.ready();
    return { ...opened, ip };
  }

  /** What the service computes for this browser: the address it comes from, the agent it sends. */
  async function fingerprintOf(page: Page, ip: string): Promise<string> {
    const userAgent = await page.evaluate(() => navigator.userAgent);
    const site = await harness.service.store.sites.get(harness.siteId);
    const fingerprint = await harness.service.sessions.fingerprint(site!.workspace_id, {
      ip,
      userAgent,
    });
    expect(fingerprint).to.match(/^[0-9a-f]{64}$/);
    return fingerprint;
  }

  /** The text of the element focused inside the widget's shadow root. */
  const focusedText = (page: Page) =>
    page.evaluate(
      () => document.querySelector("sitevoice-widget")?.shadowRoot?.activeElement?.textContent,
    );

  const visitorCalls = (opened: OpenedPage) =>
    opened.requests.filter((url) => VISITOR_PATH.test(url)).length;

  it("shows the service's fingerprint for this browser in the notice, whole and selectable, and it is the token's", async () => {
    const opened = await visit();
    const { page, context } = opened;
    try {
      const expected = await fingerprintOf(page, opened.ip);
      await page.locator(LAUNCHER).click();
      const id = page.locator(VISITOR_ID);
      await id.waitFor();
      expect(await id.textContent()).to.equal(expected);
      expect(await page.locator(VISITOR_LINE).textContent()).to.equal(
        `Your visitor ID: ${expected}${LINE_END}`,
      );
      expect(await page.locator(NOTICE).textContent()).to.include("audio is not recorded");
      // Selectable in one go, and all 64 characters inside the panel (wrapped, not cut off).
      const look = await id.evaluate((code) => {
        const panel = code.closest(".panel")!.getBoundingClientRect();
        const box = code.getBoundingClientRect();
        return {
          select: getComputedStyle(code).userSelect,
          inside: box.left >= panel.left && box.right <= panel.right,
        };
      });
      expect(look).to.deep.equal({ select: "all", inside: true });
      // While the notice asks, its own buttons are the only way on.
      expect(await page.locator(PRIVACY).isVisible()).to.equal(false);
      expect(await page.locator(`${NOTICE} button`).allTextContents()).to.deep.equal([
        "Start talking",
        "Type instead",
        "Not now",
      ]);

      const token = page.waitForResponse((r) => r.url().endsWith("/token"));
      await page.locator(`${NOTICE} button.primary`).click();
      const answer = await token;
      expect(answer.status()).to.equal(200);
      const { data } = (await answer.json()) as {
        data: { session_id: string; user_fingerprint: string };
      };
      expect(data.user_fingerprint).to.equal(expected);
      const session = await harness.service.store.sessions.get(data.session_id);
      expect(session?.user_fingerprint).to.equal(expected);
    } finally {
      await context.close();
    }
  });

  it("shows the ID again, read-only, behind Privacy once the notice is accepted", async () => {
    const opened = await visit();
    const { page, context } = opened;
    try {
      const expected = await fingerprintOf(page, opened.ip);
      await page.locator(LAUNCHER).click();
      await page.locator(VISITOR_ID).waitFor();
      await page.locator(`${NOTICE} button.primary`).click();
      await page.locator(NOTICE).waitFor({ state: "hidden" });
      const privacy = page.locator(PRIVACY);
      await privacy.waitFor({ state: "visible" });
      expect(await privacy.evaluate((b) => b.tagName)).to.equal("BUTTON");

      await privacy.click();
      await page.locator(VISITOR_ID).waitFor();
      expect(await page.locator(VISITOR_ID).textContent()).to.equal(expected);
      expect(await page.locator(NOTICE).textContent()).to.include("audio is not recorded");
      // Nothing to accept or decline: a Close button, focused, and Privacy out of the way.
      expect(await page.locator(`${NOTICE} button`).allTextContents()).to.deep.equal(["Close"]);
      expect(await focusedText(page)).to.equal("Close");
      expect(await privacy.isVisible()).to.equal(false);

      await page.locator(`${NOTICE} button`).click();
      await page.locator(NOTICE).waitFor({ state: "hidden" });
      expect(await privacy.isVisible()).to.equal(true);
      expect(await focusedText(page)).to.equal("Privacy");
      // The call went on meanwhile, and the ID was asked for once in this page view.
      await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
      expect(visitorCalls(opened)).to.equal(1);
    } finally {
      await context.close();
    }
  });

  it("shows a visitor who accepted on an earlier visit their ID behind Privacy", async () => {
    const opened = await visit();
    const { page, context } = opened;
    try {
      const expected = await fingerprintOf(page, opened.ip);
      await page.evaluate(
        (key) => localStorage.setItem(key, new Date().toISOString()),
        `service:notice:${harness.siteId}`,
      );
      await page.reload();
      await opened.ready();
      await page.locator(LAUNCHER).click();
      await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
      // Not asked again, and not asked for the ID until the visitor wants it.
      expect(await page.locator(NOTICE).isVisible()).to.equal(false);
      expect(visitorCalls(opened)).to.equal(0);
      await page.locator(PRIVACY).click();
      await page.locator(VISITOR_ID).waitFor();
      expect(await page.locator(VISITOR_ID).textContent()).to.equal(expected);
    } finally {
      await context.close();
    }
  });

  it("keeps the notice working without the ID when the service cannot say it, and asks again later", async () => {
    const opened = await visit();
    const { page, context } = opened;
    // The last route added runs first: the visitor endpoint is unreachable, the rest is not.
    const unreachable = (route: Route) => route.abort("connectionrefused");
    await context.route(VISITOR_PATH, unreachable);
    try {
      const expected = await fingerprintOf(page, opened.ip);
      const failed = page.waitForEvent("requestfailed", (r) => VISITOR_PATH.test(r.url()));
      await page.locator(LAUNCHER).click();
      await failed;
      const accept = page.locator(`${NOTICE} button.primary`);
      await accept.waitFor();
      // Past the failed ask's settling: a round trip to the page after it.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
      expect(await page.locator(VISITOR_LINE).isVisible()).to.equal(false);
      expect(await page.locator(`${NOTICE} code`).count()).to.equal(0);
      expect(await page.locator(NOTICE).textContent()).to.not.include("visitor ID");

      const token = page.waitForResponse((r) => r.url().endsWith("/token"));
      await accept.click();
      expect((await token).status()).to.equal(200);
      await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();

      // Reachable again: Privacy asks anew, and shows it.
      await context.unroute(VISITOR_PATH, unreachable);
      await page.locator(PRIVACY).click();
      await page.locator(VISITOR_ID).waitFor();
      expect(await page.locator(VISITOR_ID).textContent()).to.equal(expected);
      expect(visitorCalls(opened)).to.equal(2);
    } finally {
      await context.close();
    }
  });
});
