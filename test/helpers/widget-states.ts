/**
 * The widget's states as a visitor reaches them, for the accessibility tests: a page of a site,
 * the notice open, a voice call listening on the OpenAI stand-in, a text conversation waiting,
 * the callback form. Each starts from a fresh page, so no test depends on another's state.
 */
import type { Browser, Page } from "playwright-core";
import type { RealtimeCall } from "./realtime-call.ts";
import { waitUntil } from "./wait-until.ts";
import { openPage, type OpenedPage, type WidgetHarness } from "./widget-harness.ts";

export const LAUNCHER = "sitevoice-widget button.launcher";
export const STATUS = "sitevoice-widget .status";
export const NOTICE_BUTTON = "sitevoice-widget .notice button";
export const CAPTIONS = "sitevoice-widget .captions";
export const MESSAGE = "sitevoice-widget .composer input";
export const CALLBACK = "sitevoice-widget form.callback";

/** The site's page in `browser`, once the widget has shown its launcher. */
export async function visit(browser: Browser, origin: string): Promise<OpenedPage> {
  const opened = await openPage(browser, `${origin}/`);
  await opened.ready();
  return opened;
}

/** The first call to reach the stand-in after `count` calls, opened. */
export async function nextCallAfter(harness: WidgetHarness, count: number): Promise<RealtimeCall> {
  let call = await harness.openai.calls.nextCall();
  while (harness.openai.calls.calls.indexOf(call) < count) {
    call = await harness.openai.calls.nextCall();
  }
  await call.opened;
  return call;
}

/** The launcher pressed: the notice, with the visitor's ID in it. */
export async function openNotice(page: Page): Promise<void> {
  await page.locator(LAUNCHER).click();
  await page.locator("sitevoice-widget .notice code").waitFor();
}

/** "Start talking" at the notice: a voice call, listening. */
export async function startVoiceCall(harness: WidgetHarness, page: Page): Promise<RealtimeCall> {
  const calls = harness.openai.calls.calls.length;
  await openNotice(page);
  await page.locator(NOTICE_BUTTON, { hasText: "Start talking" }).click();
  const call = await nextCallAfter(harness, calls);
  await listening(page);
  return call;
}

export const listening = (page: Page) =>
  page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();

/** "Type instead" at the notice: the text box waits for the first message. */
export async function chooseTyping(page: Page): Promise<void> {
  await openNotice(page);
  await page.locator(NOTICE_BUTTON, { hasText: "Type instead" }).click();
  await page.locator(STATUS).filter({ hasText: "Type your message" }).waitFor();
}

/**
 * What has focus inside the widget, as "id-or-class words" (its words: its label, placeholder or
 * a button's text), or "outside" when nothing in it has.
 */
export function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const node = document.querySelector("sitevoice-widget")?.shadowRoot?.activeElement;
    if (!node) return "outside";
    const text = node.tagName === "BUTTON" ? node.textContent : "";
    const words = node.getAttribute("aria-label") ?? node.getAttribute("placeholder") ?? text;
    return `${node.id || node.className} ${words ?? ""}`.trim();
  });
}

/** Presses Tab (Shift+Tab when `back`) until what has focus includes `words`; fails after 30. */
export async function tabTo(page: Page, words: string, back = false): Promise<void> {
  const seen: string[] = [];
  for (let presses = 0; presses < 30; presses++) {
    const now = await focused(page);
    if (now.includes(words)) return;
    seen.push(now);
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`Tab never reached "${words}"; it went through: ${seen.join(" | ")}`);
}

/**
 * What has focus once it includes `words`, or after a few seconds whatever has it then, for the
 * test's assertion to name.
 */
export async function focusOn(page: Page, words: string): Promise<string> {
  let now = "";
  const there = async () => (now = await focused(page)).includes(words);
  await waitUntil(`focus on "${words}"`, there, 3000).catch(() => undefined);
  return now;
}
