/**
 * The agent's `search_site` through the widget in headless Chromium, connected to the OpenAI
 * stand-in: the widget answers the function with a signed `POST /v1/:siteId/knowledge` and gives
 * the model the passages (their text bounded), and the call counts once, as the service records
 * it (the widget sends no usage event of its own for it). Last, the site's page crawled by the
 * service's own crawl: search_site finds the passage a question needs, and scroll_to shows it.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import type { RealtimeCall } from "./helpers/realtime-call.ts";
import {
  openPage,
  startWidgetHarness,
  type OpenedPage,
  type WidgetHarness,
} from "./helpers/widget-harness.ts";

const STATUS = "sitevoice-widget .status";

describe("search_site through the widget", function () {
  this.timeout(60_000);
  let harness: WidgetHarness;

  before(async function () {
    harness = await startWidgetHarness(this);
  });
  after(() => harness?.close());

  /** Opens the site's home page, presses the launcher (accepting the notice) and connects. */
  async function startCall(): Promise<OpenedPage & { call: RealtimeCall }> {
    const visitor = await openPage(harness.browser, `${harness.site.origin}/`);
    await visitor.ready();
    const calls = harness.openai.calls.calls.length;
    await visitor.page.locator("sitevoice-widget button.launcher").click();
    await visitor.page.locator("sitevoice-widget .notice button.primary").click();
    let call = await harness.openai.calls.nextCall();
    while (harness.openai.calls.calls.indexOf(call) < calls) {
      call = await harness.openai.calls.nextCall();
    }
    await call.opened;
    await visitor.page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    return { ...visitor, call };
  }

  const sessionIdOf = async (page: Page) =>
    (
      await page.evaluate(
        (key) => JSON.parse(sessionStorage.getItem(key) ?? "null") as { session_id: string },
        `service:session:${harness.siteId}`,
      )
    ).session_id;

  async function hangUp(opened: OpenedPage): Promise<void> {
    await opened.page.locator("sitevoice-widget button.hangup").click();
    await opened.page.waitForFunction(() => sessionStorage.length === 0);
    await opened.context.close();
  }

  it("answers that nothing was found on a site without knowledge, the call counted once", async () => {
    const opened = await startCall();
    const sessionId = await sessionIdOf(opened.page);
    const answer = await opened.call.callFunction("search_site", {
      query: "are you open on sundays",
      limit: 3,
    });
    expect(answer).to.deep.equal({ found: 0, items: [] });
    await hangUp(opened);
    await harness.service.events.flush();
    const usage = await harness.service.store.events.listUsage(harness.siteId);
    const searches = usage.filter(
      (e) => e.session_id === sessionId && e.function_name === "search_site",
    );
    expect(searches.map((e) => e.type)).to.deep.equal(["function_call"]);
  });

  it("gives the model the service's refusal of a bad query as an error it can pass on", async () => {
    const opened = await startCall();
    const answer = await opened.call.callFunction("search_site", { query: "" });
    expect(answer).to.deep.include({ code: "invalid_request" });
    expect(answer).to.have.property("error").that.is.a("string");
    await hangUp(opened);
  });

  it("finds the passage a question needs on the crawled site, and scrolls the visitor to its section", async () => {
    const { service, siteId } = harness;
    const queued =
      (await service.store.crawls.active(siteId)) ??
      (await service.crawls.queue(siteId, "refresh"));
    const crawled = await service.crawls.run(queued.id);
    expect(crawled?.status, JSON.stringify(crawled?.errors)).to.equal("done");
    await service.intelligence.crawled(siteId);
    const opened = await startCall();
    const answer = (await opened.call.callFunction("search_site", {
      query: "How can I call you?",
      limit: 1,
    })) as { found: number; items: { url: string; section_id: string; text: string }[] };
    expect(answer.found).to.equal(1);
    expect(answer.items[0]).to.include({ url: `${harness.site.origin}/`, section_id: "contact" });
    expect(answer.items[0]!.text).to.include("Call us.");
    const scrolled = await opened.call.callFunction("scroll_to", {
      section_id: answer.items[0]!.section_id,
    });
    expect(scrolled).to.deep.equal({ scrolled: true, section_id: "contact" });
    await opened.page.waitForFunction(() => {
      const top = document.getElementById("contact")!.getBoundingClientRect().top;
      return top >= 0 && top < innerHeight && scrollY > 2000;
    });
    await hangUp(opened);
  });
});
