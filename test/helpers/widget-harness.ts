/**
 * What the widget's browser tests run on: the service (SQLite, the inline adapter), the OpenAI
 * stand-in with its WebRTC calls endpoint, headless Chromium, and two page servers standing for
 * websites: the site's own (its origin registered, a strict Content-Security-Policy, a page CSS
 * that would restyle any button it reached) and a stranger's, which copied the script tag.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { operatorPrincipal } from "../../core/auth/principal.ts";
import { launchChromium, requireChromium } from "./browser.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./test-databases.ts";
import { startTestService, type TestService } from "./test-service.ts";

export const SITE_COLOR = "#b91c1c";
export const SITE_COLOR_RGB = "rgb(185, 28, 28)";
const PAGE_STYLE_NONCE = "page-style";

export interface PageServer {
  origin: string;
  close(): Promise<void>;
}

export interface WidgetHarness {
  database: TestDatabase;
  service: TestService;
  openai: OpenAiStandin;
  browser: Browser;
  siteId: string;
  /** The site's registered origin, and a stranger's that is not. */
  site: PageServer;
  stranger: PageServer;
  close(): Promise<void>;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** The page's console warnings, in order. */
  warnings: string[];
  /** Every URL the page requested. */
  requests: string[];
  /** Waits for the widget's `sitevoice:ready` and returns its detail. */
  ready(): Promise<{ site_id: string; shown: boolean; reason?: string }>;
}

/**
 * For a suite's `before`: the harness, or the suite skipped (failed under CI) when Chromium or
 * SQLite is missing. `env` adds or overrides the service's settings.
 */
export async function startWidgetHarness(
  context: Mocha.Context,
  options: { env?: Record<string, string> } = {},
): Promise<WidgetHarness> {
  requireChromium(context);
  const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
  const database = await createTestDatabase(sqlite);
  if (database === undefined) missing(context, sqlite.label);
  const openai = await startOpenAiStandin();
  const service = await startTestService(database.url, {
    SITEVOICE_JOBS: "off",
    SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
    SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    SITEVOICE_DEMO: "on",
    OPENAI_API_KEY: openai.apiKey,
    OPENAI_BASE_URL: openai.baseUrl,
    // Each browser context sends an address of its own, so the token's per-IP limit (10 a
    // minute) is counted per test, as it is per visitor.
    TRUSTED_PROXIES: "loopback",
    // A test's own settings (a mail server, jobs for webhooks) over the harness's.
    ...options.env,
  });
  const siteId = `widget-${crypto.randomBytes(4).toString("hex")}`;
  const site = await startPageServer(siteId, service.url, strictCsp(service, openai));
  const stranger = await startPageServer(siteId, service.url);
  await service.sites.create(operatorPrincipal(await service.workspace(), "test"), {
    ...siteFields(siteId, site),
    appearance: { color: SITE_COLOR, position: "bottom-left", size: "large" },
    disabled_pages: ["/private/*"],
    lead_capture: { enabled: true, fields: ["name", "email", "phone"] },
    transcript_retention_days: 30,
  });
  const browser = await launchChromium();
  return {
    database,
    service,
    openai,
    browser,
    siteId,
    site,
    stranger,
    async close() {
      await browser.close();
      await site.close();
      await stranger.close();
      await service.stop();
      await openai.close();
      await database.drop();
    },
  };
}

/**
 * Another site of the harness's service, on a page server (an origin) of its own, with `fields`
 * over the test site's (a language, appearance): for a test that needs a site set up otherwise.
 */
export async function startOtherSite(
  harness: WidgetHarness,
  fields: Record<string, unknown>,
): Promise<PageServer & { siteId: string }> {
  const { service, openai } = harness;
  const siteId = `widget-${crypto.randomBytes(4).toString("hex")}`;
  const page = await startPageServer(siteId, service.url, strictCsp(service, openai));
  await service.sites.create(operatorPrincipal(await service.workspace(), "test"), {
    ...siteFields(siteId, page),
    ...fields,
  });
  return { ...page, siteId };
}

/** A site's CSP as strict as the widget allows. */
function strictCsp(service: TestService, openai: OpenAiStandin): string {
  return [
    "default-src 'self'",
    `script-src ${service.url}`,
    `connect-src ${service.url} ${openai.baseUrl}`,
    // No 'unsafe-inline': the widget's styles are a constructed stylesheet, which needs none.
    `style-src 'nonce-${PAGE_STYLE_NONCE}'`,
  ].join("; ");
}

/** The test site, served from `page`: a restaurant with an inline menu. */
function siteFields(siteId: string, page: PageServer) {
  return {
    site_id: siteId,
    business_name: "Trattoria Test",
    business_description: "Pasta",
    domain: new URL(page.origin).host,
    adapter: {
      type: "inline",
      config: { records: { menu: [{ name: "Gnocchi" }, { name: "Lasagne" }] } },
      collections: { menu: { source: "menu", searchable_fields: ["name"] } },
    },
  };
}

/**
 * A page in a fresh context (empty storage) as a visitor from an address of its own; `init` runs
 * in the page before its scripts.
 */
export async function openPage(
  browser: Browser,
  url: string,
  options: { ip?: string; init?: () => void } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext();
  // Added below the page (CORS never sees it), as a proxy in front of the service would.
  const ip = options.ip ?? randomIp();
  await context.route(/\/v1\//, (route) =>
    route.continue({ headers: { ...route.request().headers(), "x-forwarded-for": ip } }),
  );
  const page = await context.newPage();
  const warnings: string[] = [];
  const requests: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "warning") warnings.push(message.text());
  });
  page.on("request", (request) => requests.push(request.url()));
  await page.addInitScript(() => {
    addEventListener("sitevoice:ready", (event) => {
      (window as unknown as { sitevoiceReady: unknown }).sitevoiceReady = (
        event as CustomEvent
      ).detail;
    });
  });
  if (options.init !== undefined) await page.addInitScript(options.init);
  await page.goto(url);
  return {
    context,
    page,
    warnings,
    requests,
    ready: async () => {
      const handle = await page.waitForFunction(
        () => (window as unknown as { sitevoiceReady?: unknown }).sitevoiceReady,
      );
      return (await handle.jsonValue()) as Awaited<ReturnType<OpenedPage["ready"]>>;
    },
  };
}

export const randomIp = () => `198.51.100.${crypto.randomInt(1, 255)}`;

/**
 * A website embedding the widget on every path: a long page with sections `menu` and `contact`
 * far apart (for scroll_to), and a button of its own styled by the page.
 */
async function startPageServer(siteId: string, serviceUrl: string, csp?: string) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trattoria</title>
<style nonce="${PAGE_STYLE_NONCE}">
button { background: rgb(0, 128, 0) !important; border-radius: 0 !important; }
.primary { color: rgb(1, 2, 3); }
h2 { margin-top: 2400px; }
</style></head><body>
<h1 id="top">Trattoria Test</h1>
<button class="primary" id="own-button">The page's own button</button>
<h2 id="menu">Menu</h2><p>Gnocchi, lasagne.</p>
<h2 id="contact">Contact</h2><p>Call us.</p>
<script src="${serviceUrl}/widget.js" data-site-id="${siteId}" async></script>
</body></html>`;
  const server = http.createServer((req, res) => {
    if (req.url === "/favicon.ico") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      ...(csp === undefined ? {} : { "content-security-policy": csp }),
    });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
