/**
 * Captions, typing and text conversations through the widget in headless Chromium, over WebRTC to
 * the OpenAI stand-in (which follows the Realtime contract for text input and output): a voice
 * call's captions show both sides' words and what the agent looked up; a message typed during the
 * call reaches the model as a text item and its answer is captioned; a visitor without any
 * microphone permission holds a text conversation (no microphone asked for, text output only)
 * whose functions reach the service, and which ends with the usage and transcript of a voice
 * call, marked `mode: "text"`; a refused microphone offers typing at once.
 */
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "./helpers/browser.ts";
import type { RealtimeCall } from "./helpers/realtime-call.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { nextCallAfter } from "./helpers/widget-states.ts";
import {
  openPage,
  startWidgetHarness,
  type OpenedPage,
  type WidgetHarness,
} from "./helpers/widget-harness.ts";

const STATUS = "sitevoice-widget .status";
const CAPTIONS = "sitevoice-widget .captions";
const MESSAGE = "sitevoice-widget .composer input";
const NOTICE_BUTTON = "sitevoice-widget .notice button";

describe("captions, typing and text conversations in the widget", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;
  /** A browser whose every permission prompt is refused: no microphone at all. */
  let denied: Browser;

  before(async function () {
    harness = await startWidgetHarness(this);
    denied = await launchChromium({ microphone: "denied" });
    const { service, siteId } = harness;
    const queued = await service.crawls.queue(siteId, "refresh");
    const crawled = await service.crawls.run(queued.id);
    expect(crawled?.status, JSON.stringify(crawled?.errors)).to.equal("done");
    await service.intelligence.crawled(siteId);
  });
  after(async () => {
    await denied?.close();
    await harness?.close();
  });

  /** A page that counts the widget's microphone requests, on every load. */
  async function visit(browser: Browser): Promise<OpenedPage> {
    const opened = await openPage(browser, `${harness.site.origin}/`, {
      init: () => {
        const media = navigator.mediaDevices;
        const ask = media.getUserMedia.bind(media);
        const counted = window as unknown as { microphoneAsked: number };
        counted.microphoneAsked = 0;
        media.getUserMedia = (constraints) => {
          counted.microphoneAsked += 1;
          return ask(constraints);
        };
      },
    });
    await opened.ready();
    return opened;
  }

  const microphoneAsked = (page: Page) =>
    page.evaluate(() => (window as unknown as { microphoneAsked: number }).microphoneAsked);

  async function startVoiceCall(): Promise<OpenedPage & { call: RealtimeCall }> {
    const opened = await visit(harness.browser);
    const calls = harness.openai.calls.calls.length;
    await opened.page.locator("sitevoice-widget button.launcher").click();
    await opened.page.locator(NOTICE_BUTTON, { hasText: "Start talking" }).click();
    const call = await nextCallAfter(harness, calls);
    await opened.page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    return { ...opened, call };
  }

  /** Opens the panel, chooses typing at the notice and sends `message`: a text conversation. */
  async function startTextConversation(
    message: string,
    browser = denied,
  ): Promise<OpenedPage & { call: RealtimeCall }> {
    const opened = await visit(browser);
    const calls = harness.openai.calls.calls.length;
    await opened.page.locator("sitevoice-widget button.launcher").click();
    await opened.page.locator(NOTICE_BUTTON, { hasText: "Type instead" }).click();
    await opened.page.locator(STATUS).filter({ hasText: "Type your message" }).waitFor();
    await opened.page.locator(MESSAGE).fill(message);
    await opened.page.locator(MESSAGE).press("Enter");
    const call = await nextCallAfter(harness, calls);
    return { ...opened, call };
  }

  const captionLines = (page: Page) => page.locator(`${CAPTIONS} .line`).allInnerTexts();

  const sessionIdOf = async (page: Page) =>
    (
      await page.evaluate(
        (key) => JSON.parse(sessionStorage.getItem(key) ?? "null") as { session_id: string },
        `service:session:${harness.siteId}`,
      )
    ).session_id;

  it("captions both sides' words during a voice call, and what the agent looked up", async () => {
    const { page, context, call } = await startVoiceCall();
    call.visitorSays("Do you have gnocchi?");
    await call.callFunction("search_database", { collection: "menu", query: "gnocchi" });
    await call.assistantSays("Yes, we have gnocchi.");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    expect(await captionLines(page)).to.deep.equal([
      "You Do you have gnocchi?",
      "Looked up menu",
      "Assistant Yes, we have gnocchi.",
    ]);
    expect(await page.locator(CAPTIONS).getAttribute("role")).to.equal("log");
    await context.close();
  });

  it("sends a message typed during the call as a text item, and captions the answer", async () => {
    const { page, context, call } = await startVoiceCall();
    await page.locator(MESSAGE).fill("Is there parking nearby?");
    await page.locator(MESSAGE).press("Enter");
    expect(await call.nextTyped()).to.equal("Is there parking nearby?");
    await call.assistantSays("There is a garage around the corner.");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    expect(await captionLines(page)).to.deep.equal([
      "You Is there parking nearby?",
      "Assistant There is a garage around the corner.",
    ]);
    await context.close();
  });

  it("hides the captions when asked, and keeps the choice with the notice", async () => {
    const { page, context, call } = await startVoiceCall();
    call.visitorSays("Hello");
    await page.locator(`${CAPTIONS} .visitor`).waitFor();
    await page.locator("sitevoice-widget button.toggle", { hasText: "Hide captions" }).click();
    await page.locator(CAPTIONS).waitFor({ state: "hidden" });
    const entry = await page.evaluate(
      (key) => JSON.parse(localStorage.getItem(key) ?? "null") as Record<string, unknown>,
      `service:notice:${harness.siteId}`,
    );
    expect(entry).to.include({ captions_hidden: true, mode: "voice" });
    await page.locator("sitevoice-widget button.hangup").click();
    await page.waitForFunction(() => sessionStorage.length === 0);
    // The next call, on this page, starts with the captions hidden.
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    expect(await page.locator(CAPTIONS).isHidden()).to.equal(true);
    expect(await page.locator("sitevoice-widget button.toggle").innerText()).to.equal(
      "Show captions",
    );
    await context.close();
  });

  it("holds a text conversation without any microphone permission: no microphone asked for, text output only", async () => {
    const { page, context, call } = await startTextConversation("Hi, what's on the menu?");
    expect(await call.nextTyped()).to.equal("Hi, what's on the menu?");
    expect(call.session.output_modalities).to.deep.equal(["text"]);
    call.assistantWrites("We have gnocchi and lasagne.");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    expect(await captionLines(page)).to.deep.equal([
      "You Hi, what's on the menu?",
      "Assistant We have gnocchi and lasagne.",
    ]);
    expect(await microphoneAsked(page)).to.equal(0);
    await context.close();
  });

  it("runs search_site, search_database and a lead in a text conversation, and ends it with the usage and transcript marked text", async () => {
    const { service, siteId } = harness;
    const { page, context, call } = await startTextConversation("Can I call you?");
    await call.nextTyped();
    const sessionId = await sessionIdOf(page);
    const site = (await call.callFunction("search_site", { query: "How can I call you?" })) as {
      items: { section_id: string }[];
    };
    expect(site.items.map((item) => item.section_id)).to.include("contact");
    const menu = (await call.callFunction("search_database", {
      collection: "menu",
      query: "gnocchi",
    })) as { items: { name: string }[] };
    expect(menu.items.map((item) => item.name)).to.deep.equal(["Gnocchi"]);
    const lead = (await call.callFunction("submit_lead", {
      name: "Ada Lovelace",
      email: "ada@example.com",
    })) as { lead_id: string };
    expect((await service.store.leads.get(lead.lead_id))?.email).to.equal("ada@example.com");
    call.assistantWrites("Thank you, Ada.");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    await page.locator("sitevoice-widget button.hangup", { hasText: "End conversation" }).click();
    const usageOfSession = async () => {
      await service.events.flush();
      return (await service.store.events.listUsage(siteId)).filter(
        (row) => row.session_id === sessionId,
      );
    };
    await waitUntil("the session's end", async () =>
      (await usageOfSession()).some((row) => row.type === "session_end"),
    );
    const usage = await usageOfSession();
    const modeOf = (type: string) =>
      usage
        .filter((row) => row.type === type)
        .map((row) => (JSON.parse(row.metadata ?? "{}") as { mode?: string }).mode);
    expect(modeOf("session_start")).to.deep.equal(["text"]);
    expect(modeOf("session_end")).to.deep.equal(["text"]);
    await waitUntil("the transcript", async () =>
      (await service.store.leads.transcriptsOf(siteId)).some((t) => t.session_id === sessionId),
    );
    const [transcript] = (await service.store.leads.transcriptsOf(siteId)).filter(
      (t) => t.session_id === sessionId,
    );
    const turns = (
      JSON.parse(transcript!.turns) as { role: string; text?: string; name?: string }[]
    ).map(({ role, text, name }) => (role === "function" ? `${role} ${name}` : `${role} ${text}`));
    expect(turns).to.deep.equal([
      "visitor Can I call you?",
      "function search_site",
      "function search_database",
      "function submit_lead",
      "assistant Thank you, Ada.",
    ]);
    await context.close();
  });

  it("resumes a text conversation after a refresh as text: the same session, its lines, no microphone", async () => {
    const { page, context, call } = await startTextConversation("Do you deliver?");
    await call.nextTyped();
    call.assistantWrites("Not yet, but you can collect.");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    const sessionId = await sessionIdOf(page);
    const calls = harness.openai.calls.calls.length;
    await page.reload();
    const resumed = await nextCallAfter(harness, calls);
    expect(resumed.session.output_modalities).to.deep.equal(["text"]);
    await page.locator(STATUS).filter({ hasText: "Type your message" }).waitFor();
    expect(await sessionIdOf(page)).to.equal(sessionId);
    expect(await captionLines(page)).to.deep.equal([
      "You Do you deliver?",
      "Assistant Not yet, but you can collect.",
    ]);
    expect(await microphoneAsked(page)).to.equal(0);
    await context.close();
  });

  it("turns a text conversation into a voice call on Start talking: the same session, its lines kept", async () => {
    const { page, context, call } = await startTextConversation("Hello", harness.browser);
    await call.nextTyped();
    call.assistantWrites("Hello! How can I help?");
    await page.locator(`${CAPTIONS} .assistant`).waitFor();
    const sessionId = await sessionIdOf(page);
    const calls = harness.openai.calls.calls.length;
    await page.locator("sitevoice-widget button.talk").click();
    const voice = await nextCallAfter(harness, calls);
    await page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    expect(voice.session.output_modalities).to.deep.equal(["audio"]);
    expect(await sessionIdOf(page)).to.equal(sessionId);
    expect(await microphoneAsked(page)).to.equal(1);
    voice.visitorSays("Do you have a table tonight?");
    await page.locator(`${CAPTIONS} .visitor`).nth(1).waitFor();
    expect(await captionLines(page)).to.deep.equal([
      "You Hello",
      "Assistant Hello! How can I help?",
      "You Do you have a table tonight?",
    ]);
    await context.close();
  });

  it("says the microphone was refused and offers typing at once, which starts a text conversation", async () => {
    const opened = await visit(denied);
    const { page } = opened;
    const calls = harness.openai.calls.calls.length;
    await page.locator("sitevoice-widget button.launcher").click();
    await page.locator(NOTICE_BUTTON, { hasText: "Start talking" }).click();
    await page.locator(STATUS).filter({ hasText: "type your question instead" }).waitFor();
    const focused = await page.evaluate(
      () => document.querySelector("sitevoice-widget")?.shadowRoot?.activeElement?.tagName,
    );
    expect(focused).to.equal("INPUT");
    await page.keyboard.type("Are you open today?");
    await page.keyboard.press("Enter");
    const call = await nextCallAfter(harness, calls);
    expect(await call.nextTyped()).to.equal("Are you open today?");
    expect(call.session.output_modalities).to.deep.equal(["text"]);
    await opened.context.close();
  });
});
