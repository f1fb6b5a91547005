/**
 * The dashboard's sign-in pages in headless Chromium (Debian's, through playwright-core): the
 * owner setup link of the first start, sign-out and sign-in by password, a wrong password's
 * message, a magic link mailed to a real SMTP server, and an API key made (shown once, working at
 * once) and revoked. Every request stays on the service's
 * origin, and every page passes axe-core with no serious or critical violation.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { accessibilityProblems } from "./helpers/axe.ts";
import { launchChromium, requireChromium } from "./helpers/browser.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { mailsTo } from "./helpers/mailed-links.ts";
import { smtpServer } from "./helpers/smtp-server.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const EMAIL = "owner@acme.example";
const PASSWORD = "correct horse battery";

describe("the dashboard's first pages in a browser", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  /** The key the list showed in place, for the test that revokes it. */
  let nightlyKey = "";
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-dashboard-"));

  const checked = async (name: string, on: Page = page) => {
    expect(await accessibilityProblems(on), `${name}: axe`).to.deep.equal([]);
    await on.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  };

  before(async function () {
    requireChromium(this);
    database = (await createTestDatabase(sqlite))!;
    smtp = await smtpServer();
    service = await startTestService(database.url, {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on("request", (req) => requested.push(req.url()));
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await smtp?.close();
    await database?.drop();
    // `SCREENSHOTS_DIR=docs/screenshots` keeps them (the README shows those).
    if (process.env.SCREENSHOTS_DIR !== undefined) {
      fs.cpSync(shots, process.env.SCREENSHOTS_DIR, { recursive: true });
    }
    fs.rmSync(shots, { recursive: true, force: true });
  });

  it("sends a visitor without a session to sign in", async () => {
    await page.goto(`${service.url}/dashboard`);
    expect(new URL(page.url()).pathname).to.equal("/dashboard/sign-in");
    expect(await page.getByRole("heading", { name: "Sign in", exact: true }).isVisible()).to.equal(
      true,
    );
    await checked("sign-in");
  });

  it("makes the holder of the setup link the owner, and shows their workspace", async () => {
    const token = service.boot.setupLink!.split("#token=")[1]!;
    await page.goto(`${service.url}/dashboard/setup#token=${token}`);
    // The token left the address bar once read.
    expect(page.url()).to.equal(`${service.url}/dashboard/setup`);
    await checked("setup");
    await page.getByLabel("Your email").fill(EMAIL);
    await page.getByLabel("Password (at least 10 characters)").fill(PASSWORD);
    await page.getByRole("button", { name: "Become the owner" }).click();
    await page.waitForURL(`${service.url}/dashboard`);
    expect(await page.locator(".workspaces li").allInnerTexts()).to.deep.equal([
      "Default workspace owner Sites API keys People",
    ]);
    await checked("home");
  });

  it("signs out, then refuses a wrong password with a message, then signs in", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${service.url}/dashboard/sign-in`);
    await page.goto(`${service.url}/dashboard`);
    expect(new URL(page.url()).pathname).to.equal("/dashboard/sign-in");
    const form = page.locator('form[data-api="/v1/auth/signin"]');
    await form.getByLabel("Email").fill(EMAIL);
    await form.getByLabel("Password").fill("not the password");
    await form.getByRole("button", { name: "Sign in" }).click();
    await page.waitForFunction(() =>
      document
        .querySelector('form[data-api="/v1/auth/signin"] [role="alert"]')
        ?.textContent?.includes("Wrong email or password"),
    );
    await form.getByLabel("Password").fill(PASSWORD);
    await form.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${service.url}/dashboard`);
    expect(await page.locator(".top").innerText()).to.contain(EMAIL);
  });

  it("signs in with a mailed link, confirmed by a press on the page it opens", async () => {
    const fresh = await browser.newPage();
    fresh.on("request", (req) => requested.push(req.url()));
    await fresh.goto(`${service.url}/dashboard/sign-in`);
    const form = fresh.locator('form[data-api="/v1/auth/magic-link"]');
    await form.getByLabel("Email").fill(EMAIL);
    await form.getByRole("button", { name: "Mail me a sign-in link" }).click();
    await fresh.waitForFunction(() => document.body.innerText.includes("Check your mail"));
    const [mail] = await mailsTo(smtp, EMAIL, 1);
    const link = /https?:\/\/\S+\/dashboard\/verify#token=\S+/.exec(mail!.text ?? "")![0];
    await fresh.goto(`${service.url}${link.slice(link.indexOf("/dashboard"))}`);
    // Opening the link signs nobody in: a mail scanner's visit does nothing.
    expect(await fresh.context().cookies()).to.deep.equal([]);
    await checked("verify", fresh);
    await fresh.getByRole("button", { name: "Sign in" }).click();
    await fresh.waitForURL(`${service.url}/dashboard`);
    expect(await fresh.locator(".workspaces li").count()).to.equal(1);
    await fresh.close();
  });

  it("makes an API key shown once, which works at once, and revokes it", async () => {
    await service.sites.create(operatorPrincipal(service.boot.workspaceId, "test"), {
      site_id: "keys-page",
      business_name: "Keys Page",
      business_description: "",
      domain: "keys-page.example",
    });
    await page.goto(`${service.url}/dashboard`);
    await page.getByRole("link", { name: "API keys" }).click();
    await page.waitForURL(/\/dashboard\/keys\?workspace_id=/);
    await page.getByLabel("Name").fill("CI deploy");
    await page.getByLabel("sites:read").check();
    await page.getByLabel("Keys Page (keys-page)").check();
    await page.getByRole("button", { name: "Create the key" }).click();
    const output = page.locator("output.value");
    await output.waitFor();
    await page.waitForFunction(() => document.querySelector("output.value")?.textContent !== "");
    const value = await output.innerText();
    expect(value).to.match(/^vk_live_[A-Za-z0-9_-]{32}$/);
    const sites = await fetch(`${service.url}/v1/sites`, {
      headers: { Authorization: `Bearer ${value}` },
    });
    expect(sites.status).to.equal(200);
    expect(
      ((await sites.json()) as { data: { site_id: string }[] }).data.map((x) => x.site_id),
    ).to.deep.equal(["keys-page"]);
    await page.reload();
    expect(await page.locator(".keys").innerText()).to.contain(`vk_live_••••${value.slice(-4)}`);
    expect(await page.content()).to.not.contain(value);
    // Checked and pictured without the value, which a screenshot must not keep.
    await checked("keys");
    await page.getByRole("button", { name: "Revoke CI deploy" }).click();
    await page.waitForFunction(() =>
      document.querySelector(".keys")?.textContent?.includes("revoked"),
    );
    const refused = await fetch(`${service.url}/v1/sites`, {
      headers: { Authorization: `Bearer ${value}` },
    });
    expect(refused.status).to.equal(401);
  });

  it("shows a key just made in the list at once, without reloading the page", async () => {
    await page.goto(`${service.url}/dashboard/keys?workspace_id=${service.boot.workspaceId}`);
    // Gone if the page loads again: the list must change in place.
    await page.evaluate(() => Object.assign(window, { sameLoad: true }));
    await page.getByLabel("Name").fill("Nightly export");
    await page.getByLabel("sites:read").check();
    await page.getByRole("button", { name: "Create the key" }).click();
    await page.waitForFunction(() => document.querySelector("output.value")?.textContent !== "");
    const value = await page.locator("output.value").innerText();
    await page.waitForFunction(
      () => document.querySelector(".keys")?.textContent?.includes("Nightly export"),
      undefined,
      { timeout: 5_000 },
    );
    expect(await page.evaluate(() => "sameLoad" in window)).to.equal(true);
    const listed = await page.locator(".keys li", { hasText: "Nightly export" }).innerText();
    expect(listed).to.contain(`vk_live_••••${value.slice(-4)}`);
    expect(await page.locator(".keys").innerText()).to.not.contain(value);
    nightlyKey = value;
  });

  it("revokes a key from the list drawn again in place", async () => {
    await page.getByRole("button", { name: "Revoke Nightly export" }).click();
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll(".keys li")).some(
          (row) =>
            row.textContent?.includes("Nightly export") && row.textContent.includes("revoked"),
        ),
      undefined,
      { timeout: 5_000 },
    );
    const refused = await fetch(`${service.url}/v1/sites`, {
      headers: { Authorization: `Bearer ${nightlyKey}` },
    });
    expect(refused.status).to.equal(401);
  });

  it("invites someone by mail, who joins as a member from the link", async () => {
    await page.goto(`${service.url}/dashboard`);
    await page.getByRole("link", { name: "People" }).click();
    await page.waitForURL(/\/dashboard\/members\?workspace_id=/);
    await page.getByLabel("Email").fill("bo@acme.example");
    await page.getByRole("button", { name: "Send the invitation" }).click();
    await page.waitForFunction(() => document.body.innerText.includes("Invitation sent"));
    await checked("members");
    const [mail] = await mailsTo(smtp, "bo@acme.example", 1);
    const link = /https?:\/\/\S+\/dashboard\/accept#token=\S+/.exec(mail!.text ?? "")![0];
    const invited = await browser.newPage();
    invited.on("request", (req) => requested.push(req.url()));
    await invited.goto(`${service.url}${link.slice(link.indexOf("/dashboard"))}`);
    await checked("accept", invited);
    await invited.getByLabel(/^Password/).fill(PASSWORD);
    await invited.getByRole("button", { name: "Accept the invitation" }).click();
    await invited.waitForURL(`${service.url}/dashboard`);
    expect(await invited.locator(".workspaces li").allInnerTexts()).to.deep.equal([
      "Default workspace member Sites API keys People",
    ]);
    await invited.getByRole("link", { name: "People" }).click();
    await invited.waitForURL(/\/dashboard\/members/);
    expect(await invited.locator("main").innerText()).to.contain("Only an owner invites people.");
    expect(await invited.locator(".people li").allInnerTexts()).to.deep.equal([
      `${EMAIL} owner`,
      "bo@acme.example member",
    ]);
    await invited.close();
  });

  it("shows each problem of a refused save once, beside its field", async () => {
    const workspaceId = service.boot.workspaceId;
    await service.store.db.knex("workspaces").where({ id: workspaceId }).update({ plan: "pro" });
    const principal = operatorPrincipal(workspaceId, "test");
    const site = (siteId: string, domain: string) =>
      service.sites.create(principal, {
        site_id: siteId,
        business_name: siteId,
        business_description: "",
        domain,
      });
    await site("held-domain", "held.example");
    await site("form-check", "form-check.example");
    await page.goto(`${service.url}/dashboard/sites/form-check?workspace_id=${workspaceId}`);
    await page.getByLabel("Website domain").fill("held.example");
    await page.getByLabel("Time zone").fill("Mars/Base");
    await page.getByLabel("Voice").fill("bogus");
    await page.getByRole("button", { name: "Save the settings" }).click();
    await page.locator("#problem-voice li").waitFor();
    /** The problems shown under the control labelled `label`, which that control names. */
    const beside = (label: string) =>
      page.getByLabel(label, { exact: true }).evaluate((control) => {
        const slot = control.nextElementSibling;
        const described = control.getAttribute("aria-describedby") === slot?.id;
        return {
          described,
          problems: Array.from(slot?.querySelectorAll("li") ?? [], (li) => li.textContent),
        };
      });
    expect(await beside("Website domain")).to.deep.equal({
      described: true,
      problems: ["Domain held.example already belongs to site 'held-domain' of this workspace"],
    });
    const timezone = await beside("Time zone");
    expect(timezone.problems).to.have.length(1);
    expect(timezone.problems[0]).to.match(/^timezone must be an IANA time-zone name/);
    const voice = await beside("Voice");
    expect(voice.problems).to.have.length(1);
    expect(voice.problems[0]).to.match(/^"bogus" is not a voice of the openai voice provider/);
    expect(await beside("Business name")).to.deep.equal({ described: true, problems: [] });
    const shown = await page.locator("main").innerText();
    for (const problem of [timezone.problems[0]!, voice.problems[0]!]) {
      expect(shown.split(problem).length - 1, problem).to.equal(1);
    }
    const problems = await page.locator(".field-problem li, .answer").allInnerTexts();
    expect(problems.join("\n")).not.to.match(/\b(timezone|voice|domain)\s+\1\b/i);
    await checked("site-problems");

    // Fixed, the save goes through and the page is drawn anew, with no problem left.
    await page.getByLabel("Website domain").fill("form-check.example");
    await page.getByLabel("Time zone").fill("Europe/Berlin");
    await page.getByLabel("Voice").fill("verse");
    await page.getByRole("button", { name: "Save the settings" }).click();
    await page.waitForURL(/saved=2$/);
    expect(await page.locator(".field-problem li").count()).to.equal(0);
  });

  it("searches what the assistant knows from the site's page, the answer shown in place", async () => {
    const workspaceId = service.boot.workspaceId;
    await page.goto(`${service.url}/dashboard/sites/form-check?workspace_id=${workspaceId}`);
    await page.locator("#knowledge-summary").filter({ hasText: "Nothing yet" }).waitFor();
    await page.getByLabel("A visitor's question").fill("Is there parking?");
    await page.getByRole("button", { name: "Search the pages" }).click();
    const hits = page.locator("#knowledge-hits");
    await hits.filter({ hasText: "Nothing on the site's pages answers" }).waitFor();
    expect(await hits.innerText()).to.include("“Is there parking?”");
    await checked("site-knowledge");
  });

  it("made no request to another origin", () => {
    const origin = new URL(service.url).origin;
    expect(requested.length).to.be.greaterThan(10);
    expect(requested.filter((url) => new URL(url).origin !== origin)).to.deep.equal([]);
  });

  it("saved a screenshot of each page", () => {
    expect(fs.readdirSync(shots).sort()).to.deep.equal([
      "accept.png",
      "home.png",
      "keys.png",
      "members.png",
      "setup.png",
      "sign-in.png",
      "site-knowledge.png",
      "site-problems.png",
      "verify.png",
    ]);
  });
});
