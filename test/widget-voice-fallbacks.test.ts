/**
 * When voice cannot work, the widget says why in plain words and offers typing at once (the text
 * box focused): no microphone at all, a page outside a secure context (where browsers give no
 * microphone), and a call whose WebRTC connection does not open within 10 seconds (a network
 * that blocks it, played by an SDP answer without any ICE candidate). And the mute button during
 * a call: pressed, the microphone's track is off and the status says so.
 */
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "./helpers/browser.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { openPage, startWidgetHarness, type WidgetHarness } from "./helpers/widget-harness.ts";

const STATUS = "sitevoice-widget .status";
const LAUNCHER = "sitevoice-widget button.launcher";
const START = "sitevoice-widget .notice button.primary";

describe("the widget when voice cannot work", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  const browsers: Browser[] = [];

  before(async function () {
    harness = await startWidgetHarness(this);
  });
  after(async () => {
    for (const browser of browsers) await browser.close();
    await harness?.close();
  });

  async function browser(options: Parameters<typeof launchChromium>[0]): Promise<Browser> {
    const launched = await launchChromium(options);
    browsers.push(launched);
    return launched;
  }

  /** The element focused inside the widget's shadow root, as tag and class. */
  const focusedInWidget = (page: Page) =>
    page.evaluate(() => {
      const active = document.querySelector("sitevoice-widget")?.shadowRoot?.activeElement;
      return active === null || active === undefined ? null : active.tagName;
    });

  it("says there is no microphone and offers typing", async () => {
    const opened = await openPage(await browser({ microphone: "absent" }), harness.site.origin);
    await opened.ready();
    await opened.page.locator(LAUNCHER).click();
    await opened.page.locator(START).click();
    await opened.page.locator(STATUS).filter({ hasText: "No microphone was found" }).waitFor();
    expect(await focusedInWidget(opened.page)).to.equal("INPUT");
    expect(opened.requests.filter((url) => url.endsWith("/token"))).to.deep.equal([]);
    await opened.context.close();
  });

  it("says talking needs a secure page where the browser says the page is not one, and offers typing", async () => {
    // No origin the service allows is insecure (plain http only for localhost and 127.0.0.1,
    // which browsers count as secure), so the browser's answer is played here.
    const opened = await openPage(harness.browser, harness.site.origin, {
      init: () => Object.defineProperty(window, "isSecureContext", { value: false }),
    });
    await opened.ready();
    await opened.page.locator(LAUNCHER).click();
    await opened.page.locator(START).click();
    await opened.page.locator(STATUS).filter({ hasText: "needs a secure (https) page" }).waitFor();
    expect(await focusedInWidget(opened.page)).to.equal("INPUT");
    expect(opened.requests.filter((url) => url.endsWith("/token"))).to.deep.equal([]);
    await opened.context.close();
  });

  it("gives up a call not connected within 10 seconds, says so, and offers typing", async () => {
    const opened = await openPage(harness.browser, harness.site.origin);
    await opened.ready();
    // The provider's answer without its ICE candidates: no path for the media, as on a network
    // that blocks WebRTC.
    await opened.context.route(/\/v1\/realtime\/calls$/, async (route) => {
      const answer = await route.fetch();
      const sdp = (await answer.text())
        .split("\r\n")
        .filter((line) => !line.startsWith("a=candidate") && line !== "a=end-of-candidates")
        .join("\r\n");
      await route.fulfill({ response: answer, body: sdp });
    });
    await opened.page.locator(LAUNCHER).click();
    await opened.page.locator(START).click();
    await opened.page
      .locator(STATUS)
      .filter({ hasText: "voice connection could not be made" })
      .waitFor({ timeout: 20_000 });
    expect(await focusedInWidget(opened.page)).to.equal("INPUT");
    // The session it had started is ended, not left open.
    await opened.page.waitForFunction(() => sessionStorage.length === 0);
    await opened.context.close();
  });

  it("mutes the microphone during a call: the track off, the button pressed, the status saying so", async () => {
    const opened = await openPage(harness.browser, harness.site.origin);
    await opened.ready();
    // The page's microphone tracks, to see the mute reach them.
    await opened.page.evaluate(() => {
      const media = navigator.mediaDevices;
      const ask = media.getUserMedia.bind(media);
      const seen = window as unknown as { tracks: MediaStreamTrack[] };
      seen.tracks = [];
      media.getUserMedia = async (constraints) => {
        const stream = await ask(constraints);
        seen.tracks.push(...stream.getAudioTracks());
        return stream;
      };
    });
    await opened.page.locator(LAUNCHER).click();
    await opened.page.locator(START).click();
    await opened.page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    const mute = opened.page.locator("sitevoice-widget button", { hasText: "Mute" });
    const trackEnabled = () =>
      opened.page.evaluate(() =>
        (window as unknown as { tracks: MediaStreamTrack[] }).tracks.map((t) => t.enabled),
      );
    expect(await trackEnabled()).to.deep.equal([true]);
    await mute.click();
    await opened.page.locator(STATUS).filter({ hasText: "Muted" }).waitFor();
    expect(await mute.getAttribute("aria-pressed")).to.equal("true");
    expect(await trackEnabled()).to.deep.equal([false]);
    await mute.click();
    await opened.page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    expect(await trackEnabled()).to.deep.equal([true]);
    await waitUntil(
      "the button released",
      async () => (await mute.getAttribute("aria-pressed")) === "false",
    );
    await opened.context.close();
  });
});
