/**
 * The usage page in headless Chromium (Debian's, through playwright-core), for a site whose
 * events were written here through the signed widget API: the uPlot charts drawn (pixels on each
 * canvas) beside the totals as text, a range chosen with the keyboard, the page fitting a phone's
 * width, an event recorded meanwhile appearing in the live tail. No request leaves the service's
 * origin, the Content-Security-Policy is never violated (no console error), and the page passes
 * axe-core with no serious or critical violation; its screenshot is usage.png (kept in
 * `SCREENSHOTS_DIR` when set).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { accessibilityProblems } from "./helpers/axe.ts";
import { launchChromium, requireChromium } from "./helpers/browser.ts";
import {
  expectedSummary,
  listedEvents,
  openSession,
  record,
  signUp,
  siteOf,
  visit,
  type Member,
  type UsageSite,
} from "./helpers/dashboard-usage.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the dashboard's usage page in a browser", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let member: Member;
  let site: UsageSite;
  const requested: string[] = [];
  const problems: string[] = [];
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-usage-"));

  /** How many pixels of each chart's canvas uPlot has painted, by the chart's field. */
  const painted = () =>
    page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>(".usage-plot")).map((box) => {
        const canvas = box.querySelector("canvas");
        if (canvas === null || canvas.width === 0) return [box.dataset.field, 0];
        const pixels = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
        let count = 0;
        for (let i = 3; i < pixels.data.length; i += 4) if (pixels.data[i]! > 0) count += 1;
        return [box.dataset.field, count];
      }),
    );
  const chartsDrawn = () =>
    page.waitForFunction(() => document.getElementById("usage")?.dataset.drawn === "true");

  before(async function () {
    requireChromium(this);
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_SIGNUP: "open" });
    member = await signUp(service, "Bright Smiles agency");
    site = await siteOf(service, member, {
      site_id: "bright-smiles",
      business_name: "Bright Smiles",
      timezone: "UTC",
    });
    await visit(service, site, {
      agoMs: 245_000,
      functions: ["search_database", "search_database", "book_appointment"],
      queries: 3,
      costCents: 61.25,
    });
    await visit(service, site, { agoMs: 95_000, functions: ["search_database"] });
    await visit(service, site, { agoMs: 30_000, functions: [] });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const [name, value] = member.cookie.split("=") as [string, string];
    await context.addCookies([{ name, value, url: service.url }]);
    page = await context.newPage();
    page.on("request", (req) => requested.push(req.url()));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await database?.drop();
    if (process.env.SCREENSHOTS_DIR !== undefined) {
      fs.cpSync(shots, process.env.SCREENSHOTS_DIR, { recursive: true });
    }
    fs.rmSync(shots, { recursive: true, force: true });
  });

  it("draws a chart of sessions, minutes and cost beside the totals as text", async () => {
    await page.goto(`${service.url}/dashboard/sites?workspace_id=${member.workspaceId}`);
    await page.getByRole("link", { name: "Usage", exact: true }).click();
    await page.waitForURL(/\/dashboard\/usage\?workspace_id=/);
    await chartsDrawn();
    const { totals } = expectedSummary(await listedEvents(service, site), "day", 0);
    expect(totals).to.include({ sessions: 3, function_calls: 4, db_queries: 3, cost_cents: 61.25 });
    const shown = await page.locator(".usage-totals").innerText();
    expect(shown).to.contain("Sessions\n3").and.contain(`Minutes\n${totals.minutes}`);
    expect(shown).to.contain("Cost\n$0.6125").and.contain("Function calls\n4");
    const charts = await painted();
    expect(charts.map(([field]) => field)).to.deep.equal(["sessions", "minutes", "cost_cents"]);
    for (const [field, count] of charts) expect(count, `${field} painted`).to.be.above(100);
    for (const heading of ["Sessions per day", "Minutes per day", "Cost per day (US dollars)"]) {
      expect(await page.getByRole("heading", { name: heading }).isVisible()).to.equal(true);
    }
    expect(await page.getByRole("img", { name: /^Sessions per day.*: 3 in all/ }).count()).to.equal(
      1,
    );
    expect(await page.locator(".usage-functions tbody").innerText()).to.match(
      /^search_database\s+3\s+book_appointment\s+1$/,
    );
    expect(await accessibilityProblems(page), "axe").to.deep.equal([]);
    await page.screenshot({ path: path.join(shots, "usage.png"), fullPage: true });
  });

  it("shows an event recorded meanwhile in the live tail", async () => {
    await waitUntil("the page's stream", () => service.usageStream.count(site.siteId) === 1);
    expect(await page.locator(".usage-live-state").innerText()).to.match(/^Live:/);
    const session = await openSession(service, site, 5_000);
    await record(service, session, { type: "function_call", function_name: "check_availability" });
    const first = page.locator(".usage-tail li").first();
    await first.waitFor();
    expect(await first.innerText()).to.match(
      /^\d\d:\d\d:\d\d UTC\s*Function call\s*check_availability$/,
    );
    expect(await page.locator(".usage-tail").getAttribute("aria-live")).to.equal("polite");
    expect(await page.locator(".usage-stale").isVisible()).to.equal(true);
  });

  it("takes another range from the keyboard, and fits a phone's width", async () => {
    await page.getByLabel("Range").focus();
    await page.keyboard.press("Home"); // the first choice: the last 24 hours
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForURL(/range=24h/);
    await chartsDrawn();
    expect(await page.getByRole("heading", { name: "Sessions per hour" }).isVisible()).to.equal(
      true,
    );
    expect((await painted()).every(([, count]) => (count as number) > 100)).to.equal(true);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll(".usage-plot canvas")).every(
        (canvas) => canvas.getBoundingClientRect().right <= window.innerWidth,
      ),
    );
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).to.equal(0);
    expect(await accessibilityProblems(page), "axe on a phone").to.deep.equal([]);
  });

  it("made no request to another origin, broke no rule of the page's policy, saved its screenshot", () => {
    const origin = new URL(service.url).origin;
    expect(requested.some((url) => url.includes("/dashboard/usage/stream?"))).to.equal(true);
    expect(requested.filter((url) => new URL(url).origin !== origin)).to.deep.equal([]);
    expect(problems).to.deep.equal([]);
    expect(fs.readdirSync(shots)).to.deep.equal(["usage.png"]);
  });
});
