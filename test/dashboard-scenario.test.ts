/**
 * A new business owner's first hour in the dashboard, in headless Chromium (Debian's, through
 * playwright-core): sign up and confirm the address by the mailed link (a real SMTP server), add a
 * site, connect a REST backend (a real HTTP server) and test the connection, copy the embed
 * snippet, make an API key and use it over HTTP, add a webhook and send a test event to a real
 * receiver, change a lead's status (the lead captured through the widget API), and read the usage
 * chart drawn from events written here. Every page passes axe-core with
 * no serious or critical violation, no request leaves the service's origin, and each main page is
 * saved as a screenshot (kept in `SCREENSHOTS_DIR` when set: the README shows docs/screenshots).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import request from "supertest";
import { dashboardPrincipal } from "../core/auth/principal.ts";
import { accessibilityProblems } from "./helpers/axe.ts";
import { launchChromium, requireChromium } from "./helpers/browser.ts";
import { startDrfServer, type DrfServer } from "./helpers/drf-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { mailedToken } from "./helpers/mailed-links.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { visit } from "./helpers/dashboard-usage.ts";
import { startReceiver, type Received, type Receiver } from "./helpers/webhook-receiver.ts";
import { newSession, signedPost } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const EMAIL = `owner-${crypto.randomBytes(3).toString("hex")}@brightsmiles.example`;
const PASSWORD = "correct horse battery";
const SITE_ID = "bright-smiles";

describe("the dashboard, from sign-up to usage chart, in a browser", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;
  let backend: DrfServer;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let workspaceId: string;
  const requested: string[] = [];
  const pageErrors: string[] = [];
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-scenario-"));

  /** The page passes axe-core; its screenshot is kept as `name`.png. */
  const checked = async (name: string) => {
    expect(await accessibilityProblems(page), `${name}: axe`).to.deep.equal([]);
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  };
  const open = async (pathAndQuery: string) => {
    await page.goto(`${service.url}${pathAndQuery}`);
  };

  before(async function () {
    requireChromium(this);
    backend = await startDrfServer();
    receiver = await startReceiver();
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      // The REST backend and the webhook receiver are local servers of this test.
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url });
    page = await context.newPage();
    page.on("request", (req) => requested.push(req.url()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await database?.drop();
    await backend?.close();
    await receiver?.close();
    if (process.env.SCREENSHOTS_DIR !== undefined) {
      fs.cpSync(shots, process.env.SCREENSHOTS_DIR, { recursive: true });
    }
    fs.rmSync(shots, { recursive: true, force: true });
  });

  it("signs up, confirms the address by the mailed link and lands on the new workspace", async () => {
    await open("/dashboard");
    const form = page.locator('form[data-api="/v1/auth/signup"]');
    await form.getByLabel("Email").fill(EMAIL);
    await form.getByLabel("Password (at least 10 characters)").fill(PASSWORD);
    await form.getByLabel("Workspace name").fill("Bright Smiles Dental");
    await form.getByRole("button", { name: "Sign up" }).click();
    await form.getByText("Check your mail").waitFor();
    // No session until the address is confirmed.
    expect(await context.cookies()).to.deep.equal([]);
    const token = await mailedToken(service.mailbox!, EMAIL, "/dashboard/confirm");
    await open(`/dashboard/confirm#token=${token}`);
    expect(page.url()).to.equal(`${service.url}/dashboard/confirm`);
    await checked("confirm");
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    await page.waitForURL(`${service.url}/dashboard`);
    expect(await page.locator(".workspaces li .name").innerText()).to.equal("Bright Smiles Dental");
    const user = await service.store.accounts.userByEmail(EMAIL);
    const [membership] = await service.store.accounts.memberships(user!.id);
    workspaceId = membership!.workspace_id;
    await checked("workspaces");
  });

  it("adds a site from the sites page", async () => {
    await page.getByRole("link", { name: "Sites" }).click();
    await page.waitForURL(/\/dashboard\/sites\?/);
    await checked("sites-empty");
    await page.getByLabel("Business name").fill("Bright Smiles");
    await page.getByLabel("Website domain").fill("brightsmiles.example");
    await page.getByLabel("What the business does").fill("A family dental practice.");
    await page.getByLabel("Site id (optional").fill(SITE_ID);
    await page.getByRole("button", { name: "Add the site" }).click();
    await page.waitForURL(new RegExp(`/dashboard/sites/${SITE_ID}\\?`));
    expect(await page.getByRole("heading", { level: 1 }).innerText()).to.equal("Bright Smiles");
    const stored = await service.store.sites.get(SITE_ID);
    expect(stored?.workspace_id).to.equal(workspaceId);
  });

  it("copies the embed snippet", async () => {
    await page.getByRole("button", { name: "Copy the snippet" }).click();
    await page.getByText("Copied.").waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).to.equal(
      `<script src="${service.settings.publicBaseUrl.replace(/\/$/, "")}/widget.js" data-site-id="${SITE_ID}" async></script>`,
    );
  });

  it("connects a REST backend and tests the connection", async () => {
    await page
      .getByRole("textbox", { name: "Adapter", exact: true })
      .fill(
        [
          "type: rest",
          "config:",
          `  baseUrl: ${backend.origin}/api`,
          "collections:",
          "  products:",
          "    source: /products/",
          "    searchable_fields: [name]",
          "    display_fields: [name, price]",
        ].join("\n"),
      );
    await page.getByRole("button", { name: "Save the adapter" }).click();
    await page.getByText("Saved as version 2.").waitFor();
    await page.getByRole("button", { name: "Test connection" }).click();
    await page.getByText("Connection works.").waitFor();
    expect(await page.locator("#adapter-test pre").innerText()).to.contain("connection: ok");
    expect(backend.requests.some((r) => r.path.startsWith("/api/products/"))).to.equal(true);
    await checked("site");
  });

  it("makes an API key and uses it over HTTP", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.waitForURL(/\/dashboard\/keys\?/);
    await page.getByLabel("Name").fill("Agency pipeline");
    await page.getByLabel("sites:read").check();
    await page.getByRole("button", { name: "Create the key" }).click();
    // The answer fills the form's (hidden, empty) output once it arrives.
    await page.locator(".shown output").waitFor();
    await page.waitForFunction(() => document.querySelector(".shown output")?.textContent !== "");
    const value = await page.locator(".shown output").innerText();
    expect(value).to.match(/^vk_live_/);
    await checked("keys");
    const res = await request(service.server)
      .get(`/v1/sites/${SITE_ID}`)
      .set("Authorization", `Bearer ${value}`)
      .expect(200);
    expect(res.body.data.business_name).to.equal("Bright Smiles");
    expect(res.body.data.adapter.type).to.equal("rest");
  });

  it("adds a webhook, sees its secret once, and sends a test event to a local receiver", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.waitForURL(/\/dashboard\/webhooks\?/);
    await page.getByLabel("URL").fill(`${receiver.url}/hooks`);
    for (const type of ["lead.captured", "lead.updated"]) {
      await page.locator(`input[name="events"][value="${type}"]`).check();
    }
    await page.getByRole("button", { name: "Add the endpoint" }).click();
    const secret = await page.locator(".shown output").innerText();
    expect(secret).to.match(/^whsec_/);
    await page.getByRole("button", { name: "Send test event" }).click();
    await receiver.waitFor(1, 15_000);
    const [test] = receiver.received;
    expect(JSON.parse(test!.body).type).to.equal("webhook.test");
    expect(signatureValid(test!, secret)).to.equal(true);
    await checked("webhooks");
    await page.reload();
    expect(await page.content()).to.not.contain(secret);
    // The delivery log as a page of its own.
    const listed = await service.webhooks.list(dashboardPrincipal(workspaceId, "test"), {
      limit: 5,
    });
    const endpoint = listed.items[0];
    await open(`/dashboard/webhooks/${endpoint!.id}/deliveries?workspace_id=${workspaceId}`);
    expect(await page.locator("main").innerText()).to.contain("webhook.test");
    await checked("webhook-log");
  });

  it("sees a lead captured on the site and changes its status", async () => {
    const session = await newSession(service, {
      siteId: SITE_ID,
      workspaceId,
      origin: "https://brightsmiles.example",
    });
    const lead = await signedPost(service, session, "/leads", {
      name: "Maria Lopez",
      email: "maria.lopez@example.com",
      message: "A cleaning next week, please.",
    });
    expect(lead.status, JSON.stringify(lead.body)).to.equal(201);
    await page.getByRole("link", { name: "Leads" }).click();
    await page.waitForURL(/\/dashboard\/leads\?/);
    const row = page.locator("tr", { hasText: "maria.lopez@example.com" });
    expect(await row.locator(".lead-status").innerText()).to.equal("new");
    await row.getByRole("combobox").selectOption("contacted");
    await row.getByRole("button", { name: "Change" }).click();
    await page.getByText("Now contacted.").waitFor();
    const stored = await service.store.leads.get(lead.body.data.lead_id);
    expect(stored?.status).to.equal("contacted");
    await receiver.waitFor(3, 15_000);
    const types = receiver.payloads().map((p) => p.type);
    expect(types).to.include.members(["lead.captured", "lead.updated"]);
    await checked("leads");
  });

  it("draws the usage chart from events written here", async () => {
    const site = { siteId: SITE_ID, workspaceId, origin: "https://brightsmiles.example", key: "" };
    await visit(service, site, {
      agoMs: 3 * 60_000,
      functions: ["search_database"],
      costCents: 12,
    });
    await visit(service, site, {
      agoMs: 2 * 60_000,
      functions: ["search_database", "submit_lead"],
    });
    await page.getByRole("link", { name: "Usage" }).click();
    await page.waitForURL(/\/dashboard\/usage\?/);
    await page.locator(".usage-plot canvas").first().waitFor();
    expect(await page.locator('[data-total="sessions"]').innerText()).to.equal("2");
    const functions = await page.locator(".usage-functions tbody tr").allInnerTexts();
    expect(functions[0]).to.match(/search_database\s+2/);
    await checked("usage");
  });

  it("shows the versions, and the visitor-data requests page", async () => {
    await open(`/dashboard/sites/${SITE_ID}/versions?workspace_id=${workspaceId}`);
    expect(await page.locator(".versions > li").count()).to.equal(2);
    await page.getByRole("button", { name: "Show the changes of version 2" }).click();
    await page.locator("#changes-2 pre").waitFor();
    expect(await page.locator("#changes-2 pre").innerText()).to.contain(
      '+ adapter: {"type":"rest"',
    );
    await checked("versions");
    await page.getByRole("link", { name: "Visitor data" }).click();
    await page.waitForURL(/\/dashboard\/visitor-data\?/);
    await checked("visitor-data");
    // A page asked for what is not there says so, in a page of its own.
    await open(`/dashboard/sites/no-such-site?workspace_id=${workspaceId}`);
    expect(await page.locator("main [role=alert]").innerText()).to.contain("no-such-site");
    await checked("not-found");
  });

  it("made no request to another origin, and no page had a script error", () => {
    expect(pageErrors).to.deep.equal([]);
    const origin = new URL(service.url).origin;
    const elsewhere = requested.filter((url) => !url.startsWith(`${origin}/`));
    expect(elsewhere).to.deep.equal([]);
    expect(requested.length).to.be.greaterThan(10);
  });
});

/** Whether a delivery carries a Standard Webhooks signature of its body under `secret`. */
function signatureValid(received: Received, secret: string): boolean {
  const { headers, body } = received;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const signed = `${String(headers["webhook-id"])}.${String(headers["webhook-timestamp"])}.${body}`;
  const expected = `v1,${crypto.createHmac("sha256", key).update(signed).digest("base64")}`;
  return String(headers["webhook-signature"] ?? "")
    .split(" ")
    .includes(expected);
}
