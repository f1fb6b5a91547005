/**
 * The connection section of a site's dashboard page, in Chromium: Connect sends the browser to a
 * real OAuth 2.0 server and back, the page says it is connected; a refused refresh shows
 * Reconnect, which mends it; Disconnect deletes the tokens. Every state passes axe-core.
 */
import net from "node:net";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import request from "supertest";
import { launchChromium, requireChromium } from "./helpers/browser.ts";
import { accessibilityProblems } from "./helpers/axe.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import type { TestService } from "./helpers/test-service.ts";
import { startOAuthProvider, type TestOAuthProvider } from "./helpers/oauth-provider.ts";
import { startAirtableStandin, type AirtableStandin } from "./helpers/airtable-standin.ts";
import { productsTable } from "./helpers/airtable-products.ts";
import { airtableSite, BASE_ID, startOAuthService } from "./helpers/oauth-site.ts";
import { signUp, type Member } from "./helpers/session-cookie.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** A port free now: the service's own, so that PUBLIC_BASE_URL (the redirect URI) names it. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe("a site's OAuth connection in the dashboard, in Chromium", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let provider: TestOAuthProvider;
  let standin: AirtableStandin;
  let service: TestService;
  let browser: Browser;
  let page: Page;
  let member: Member;
  let siteId: string;
  let key: string;
  const pageErrors: string[] = [];

  const section = () => page.locator("#connection");
  const accessible = async (what: string) =>
    expect(await accessibilityProblems(page), `${what}: axe`).to.deep.equal([]);

  before(async function () {
    requireChromium(this);
    database = (await createTestDatabase(sqlite))!;
    provider = await startOAuthProvider();
    standin = await startAirtableStandin({
      baseId: BASE_ID,
      tables: [productsTable()],
      authorize: (token) => provider.accepts(token),
    });
    const port = await freePort();
    service = await startOAuthService(database.url, provider, {
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    });
    member = await signUp(service, "Nordic Home");
    siteId = await airtableSite(service, member.workspaceId, standin.origin);
    key = await service.key(member.workspaceId);
    browser = await launchChromium();
    const context = await browser.newContext();
    const [name, value] = member.cookie.split("=") as [string, string];
    await context.addCookies([{ name, value, url: service.url }]);
    page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await standin?.close();
    await provider?.stop();
    await database?.drop();
  });

  it("offers Connect, which goes to the provider and comes back connected", async () => {
    await page.goto(`${service.url}/dashboard/sites/${siteId}?workspace_id=${member.workspaceId}`);
    await expect(await section().innerText()).to.include("Not connected yet");
    await accessible("not connected");
    await section().getByRole("link", { name: "Connect" }).click();
    await page.waitForURL(/oauth=connected/);
    expect(await section().getByRole("status").innerText()).to.include("Connected:");
    expect(await section().innerText()).to.include("Connected since");
    await accessible("connected");
    expect(provider.counts.exchange).to.equal(1);
    const search = await request(service.server)
      .post(`/v1/${siteId}/query`)
      .set("Authorization", `Bearer ${key}`)
      .send({ collection: "products", query: "lamp" })
      .expect(200);
    expect(search.body.data.items[0].name).to.equal("Kolding Lamp");
  });

  it("shows Reconnect once the provider refuses the grant, and reconnects", async () => {
    await service.store.db
      .knex("oauth_connections")
      .where({ site_id: siteId })
      .update({ expires_at: Date.now() + 60_000 });
    provider.failRefresh = "invalid_grant";
    await request(service.server)
      .post(`/v1/${siteId}/query`)
      .set("Authorization", `Bearer ${key}`)
      .send({ collection: "products", query: "lamp" })
      .expect(422);
    provider.failRefresh = undefined;
    await page.reload();
    const alert = await section().getByRole("alert").innerText();
    expect(alert).to.include("no longer accepts this connection");
    await accessible("reauth required");
    await section().getByRole("link", { name: "Reconnect" }).click();
    await page.waitForURL(/oauth=connected/);
    expect(await section().innerText()).to.include("Connected since");
    expect((await service.store.oauth.connection(siteId))!.status).to.equal("connected");
  });

  it("disconnects", async () => {
    await section().getByRole("button", { name: "Disconnect" }).click();
    await page.waitForURL(/oauth=disconnected/);
    expect(await section().getByRole("status").innerText()).to.include("Disconnected");
    expect(await section().innerText()).to.include("Not connected yet");
    expect(await service.store.oauth.connection(siteId)).to.equal(undefined);
    expect(provider.counts.revoke).to.equal(1);
    await accessible("disconnected");
    expect(pageErrors).to.deep.equal([]);
  });
});
