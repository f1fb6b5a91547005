/**
 * The demo as a bare `npm start` serves it, in headless Chromium with the OpenAI stand-in playing
 * the model: the example restaurant's site file loaded at start, its domain this service's own
 * address (as `localhost:8787` is on a bare start), so the first crawl, queued with the site and
 * run by the service's jobs, reads the demo's copy of the restaurant's website. On the widget of
 * `/demo/luigis-trattoria`, the model's `search_site` finds the passage whose text alone answers
 * a question, and `scroll_to` brings its section into view.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { launchChromium, requireChromium } from "./helpers/browser.ts";
import { freePort } from "./helpers/cli-process.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { openPage } from "./helpers/widget-harness.ts";

const SITE_ID = "luigis-trattoria";
const SITE_FILE = fileURLToPath(new URL(`../sites/${SITE_ID}.yaml`, import.meta.url));
const STATUS = "sitevoice-widget .status";
const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the demo's widget answering from the demo's pages", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let openai: OpenAiStandin | undefined;
  let service: TestService | undefined;
  let browser: Browser | undefined;
  let sitesDir: string | undefined;
  /** The demo's address, `http://localhost:<port>`, which is the site's domain. */
  let origin: string;

  before(async function () {
    requireChromium(this);
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    openai = await startOpenAiStandin();
    const port = await freePort();
    origin = `http://localhost:${port}`;
    // The site file npm start loads, its address (localhost:8787) this service's.
    sitesDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-demo-sites-"));
    fs.writeFileSync(
      path.join(sitesDir, `${SITE_ID}.yaml`),
      fs.readFileSync(SITE_FILE, "utf8").replaceAll("localhost:8787", `localhost:${port}`),
    );
    service = await startTestService(database.url, {
      PORT: String(port),
      SITEVOICE_SITES_DIR: sitesDir,
      SITEVOICE_DEMO: "on",
      SITEVOICE_JOBS_POLL_MS: "100", // the first crawl starts soon after the start
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      SITEVOICE_OUTBOUND_ALLOW: new URL(openai.baseUrl).host,
    });
    const ended = async () =>
      ["done", "failed"].includes((await service!.store.crawls.list(SITE_ID, 1))[0]?.status ?? "");
    await waitUntil("the demo site's first crawl", ended, 30_000);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await openai?.close();
    await database?.drop();
    if (sitesDir !== undefined) fs.rmSync(sitesDir, { recursive: true, force: true });
  });

  it("crawls the demo's four pages at start, without an error", async () => {
    const [crawl] = await service!.store.crawls.list(SITE_ID, 1);
    expect(crawl).to.include({ trigger: "created", status: "done", page_count: 4 });
    expect(JSON.parse(crawl!.errors ?? "null")).to.deep.equal([]);
  });

  it("finds the passage whose text alone answers a question, and scrolls the visitor to its section", async () => {
    const visitor = await openPage(browser!, `${origin}/demo/${SITE_ID}`);
    await visitor.ready();
    const parkingInView = () => {
      const top = document.getElementById("parking")!.getBoundingClientRect().top;
      return top >= 0 && top < innerHeight;
    };
    expect(await visitor.page.evaluate(parkingInView), "parking in view before").to.equal(false);
    await visitor.page.locator("sitevoice-widget button.launcher").click();
    await visitor.page.locator("sitevoice-widget .notice button.primary").click();
    const call = await openai!.calls.nextCall();
    await call.opened;
    await visitor.page.locator(STATUS).filter({ hasText: "Listening" }).waitFor();
    // The crawl found text, so the session offers the model the site's search.
    const minted = openai!.requests.at(-1)?.body as { session: { tools: { name: string }[] } };
    expect(minted.session.tools.map((tool) => tool.name)).to.include("search_site");

    // "Parking" heads the section; the question's words are only in its text.
    const answer = (await call.callFunction("search_site", {
      query: "Do you validate garage tickets?",
      limit: 1,
    })) as { found: number; items: { url: string; section_id: string; text: string }[] };
    expect(answer.found).to.equal(1);
    expect(answer.items[0]).to.include({ url: `${origin}/demo/${SITE_ID}`, section_id: "parking" });
    expect(answer.items[0]!.text).to.include("we validate your ticket for three hours");
    const scrolled = await call.callFunction("scroll_to", {
      section_id: answer.items[0]!.section_id,
    });
    expect(scrolled).to.deep.equal({ scrolled: true, section_id: "parking" });
    await visitor.page.waitForFunction(parkingInView);
    await visitor.context.close();
  });
});
