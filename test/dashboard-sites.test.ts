/**
 * The dashboard's site pages over HTTP, as htmx drives them: a site made from the list's form,
 * its settings saved with the messages `sitevoice validate` gives, its adapter saved and tested
 * against a real REST backend, a crawl refreshed, versions compared and restored, the whole site
 * checked and saved as YAML; and another workspace, no session and a cross-site request refused
 * with nothing changed.
 */
import { expect } from "chai";
import request from "supertest";
import { dashboardPrincipal } from "../core/auth/principal.ts";
import { startDrfServer, type DrfServer } from "./helpers/drf-server.ts";
import { decode, formValues, validateLines, validateMessage } from "./helpers/dashboard-forms.ts";
import { signUp } from "./helpers/session-cookie.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the dashboard's site pages", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let backend: DrfServer;
  let cookie: string;
  let workspaceId: string;
  let siteId: string;

  /** An htmx action of the dashboard with the session cookie. */
  const act = (
    url: string,
    form: Record<string, string> = {},
    extra: Record<string, string> = {},
  ) =>
    request(service.server)
      .post(url)
      .set({ Cookie: cookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true", ...extra })
      .type("form")
      .send(form);
  const page = (url: string) => request(service.server).get(url).set("Cookie", cookie);
  const inWs = (url: string) => `${url}${url.includes("?") ? "&" : "?"}workspace_id=${workspaceId}`;
  const stored = async () => (await service.store.sites.get(siteId))!;

  before(async () => {
    backend = await startDrfServer();
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      SITEVOICE_OUTBOUND_ALLOW: `127.0.0.1:${backend.port}`,
    });
    ({ cookie, workspaceId } = await signUp(service, "Acme agency"));
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
    await backend?.close();
  });

  it("makes a site from the list's form and opens its page with the embed snippet", async () => {
    const created = await act(inWs("/dashboard/sites"), {
      business_name: "Bright Smiles",
      domain: "brightsmiles.example",
      business_description: "A dental practice",
      industry: "general",
      site_id: "bright-smiles",
    });
    expect(created.status, created.text).to.equal(204);
    siteId = "bright-smiles";
    expect(created.headers["hx-redirect"]).to.equal(inWs(`/dashboard/sites/${siteId}`));
    const row = await stored();
    expect(row.workspace_id).to.equal(workspaceId);
    const versions = await service.store.sites.listVersions(siteId, { limit: 5 });
    expect(versions.map((v) => v.source)).to.deep.equal(["dashboard"]);

    const list = await page(inWs("/dashboard/sites")).expect(200);
    expect(list.text).to.contain("Bright Smiles").and.contain(`/dashboard/sites/${siteId}?`);
    const site = await page(inWs(`/dashboard/sites/${siteId}`)).expect(200);
    expect(site.text).to.contain(
      `&lt;script src&#x3D;&quot;${service.settings.publicBaseUrl.replace(/\/$/, "")}/widget.js&quot; data-site-id&#x3D;&quot;${siteId}&quot; async&gt;&lt;/script&gt;`,
    );
    expect(site.text).to.contain('data-copy="#embed-snippet"');
  });

  it("refuses a new site the rules refuse, with their message, storing nothing", async () => {
    const before = await service.store.sites.list(workspaceId, { limit: 10 });
    const res = await act(inWs("/dashboard/sites"), { business_name: "No domain" });
    expect(res.status).to.equal(400);
    expect(res.headers["content-type"]).to.match(/^text\/html/);
    expect(res.text).to.contain('role="alert"').and.contain("domain");
    expect(await service.store.sites.list(workspaceId, { limit: 10 })).to.have.length(
      before.length,
    );
  });

  it("saves the settings, and gives a bad value the message `sitevoice validate` prints", async () => {
    const site = await page(inWs(`/dashboard/sites/${siteId}`)).expect(200);
    const form = formValues(site.text, "settings-title");
    const saved = await act(inWs(`/dashboard/sites/${siteId}`), {
      ...form,
      personality: "Speak warmly.",
      additional_domains: "www.brightsmiles.example\nstaging.brightsmiles.example",
      lead_capture: "on",
    });
    expect(saved.status, saved.text).to.equal(204);
    expect(saved.headers["hx-redirect"]).to.equal(inWs(`/dashboard/sites/${siteId}`) + "&saved=2");
    const redrawn = await page(saved.headers["hx-redirect"]!).expect(200);
    expect(redrawn.text).to.contain("Saved as version 2.").and.contain("Speak warmly.");
    const view = await service.sites.get(dashboardPrincipal(workspaceId, "test"), siteId);
    expect(view.personality).to.equal("Speak warmly.");
    expect(view.additional_domains).to.deep.equal([
      "www.brightsmiles.example",
      "staging.brightsmiles.example",
    ]);
    expect(view.lead_capture.enabled).to.equal(true);

    const bad = await act(inWs(`/dashboard/sites/${siteId}`), { ...form, timezone: "Mars/Base" });
    expect(bad.status).to.be.oneOf([400, 422]);
    const message = await validateMessage(service.rules, "timezone: Mars/Base");
    expect(decode(bad.text)).to.contain(message);
    expect((await stored()).version).to.equal(2);
  });

  it("refuses a save from a page drawn before another change, keeping that change", async () => {
    const row = await stored();
    const stale = await act(inWs(`/dashboard/sites/${siteId}/yaml`), {
      yaml: `site_id: ${siteId}\nbusiness_name: Stale\nbusiness_description: ""\ndomain: brightsmiles.example\n`,
      action: "save",
      version: String(row.version - 1),
    });
    expect(stale.status).to.equal(409);
    expect(stale.text).to.contain(`it is at version ${row.version} now`);
    const settings = await act(inWs(`/dashboard/sites/${siteId}`), {
      business_name: "Stale",
      version: String(row.version - 1),
    });
    expect(settings.status).to.equal(409);
    const after = await stored();
    expect(after.version).to.equal(row.version);
    expect(after.business_name).to.equal(row.business_name);
  });

  it("saves an adapter and tests its connection against the real backend", async () => {
    const adapter = [
      "type: rest",
      "config:",
      `  baseUrl: ${backend.origin}/api`,
      "collections:",
      "  products: { source: /products/, searchable_fields: [name], display_fields: [name, price] }",
    ].join("\n");
    const saved = await act(inWs(`/dashboard/sites/${siteId}/adapter`), { adapter });
    expect(saved.status, saved.text).to.equal(204);
    expect(saved.headers["hx-redirect"]).to.match(/&saved=3$/);
    const tested = await act(inWs(`/dashboard/sites/${siteId}/adapter/test`));
    expect(tested.status).to.equal(200);
    expect(tested.text).to.contain("Connection works.").and.contain("connection: ok");
    expect(tested.text).to.contain("collection products (/products/)");
    expect(backend.requests.some((r) => r.path.startsWith("/api/products/"))).to.equal(true);

    await backend.close();
    const failed = await act(inWs(`/dashboard/sites/${siteId}/adapter/test`));
    expect(failed.text).to.contain("The test failed.").and.contain("FAILED");
    backend = await startDrfServer();
  });

  it("refuses an adapter that is not YAML or not a known type, changing nothing", async () => {
    const version = (await stored()).version;
    const notYaml = await act(inWs(`/dashboard/sites/${siteId}/adapter`), { adapter: "type: [" });
    expect(notYaml.status).to.equal(400);
    expect(notYaml.text).to.contain("not valid YAML");
    const unknown = await act(inWs(`/dashboard/sites/${siteId}/adapter`), {
      adapter: "type: nosuch\nconfig: {}\ncollections: {}",
    });
    expect(unknown.status).to.be.oneOf([400, 422]);
    expect(decode(unknown.text)).to.contain("nosuch");
    expect((await stored()).version).to.equal(version);
  });

  it("refuses an adapter nested too deeply, before composing it, changing nothing", async () => {
    const version = (await stored()).version;
    const levels = 100_000;
    const deep = await act(inWs(`/dashboard/sites/${siteId}/adapter`), {
      adapter: `type: rest\nconfig: ${"[".repeat(levels)}${"]".repeat(levels)}\n`,
    });
    expect(deep.status, deep.text.slice(0, 300)).to.equal(400);
    expect(decode(deep.text)).to.contain(
      "adapter nests lists and mappings more than 63 levels deep",
    );
    expect((await stored()).version).to.equal(version);
  });

  it("refreshes the crawl and shows its status", async () => {
    const first = await act(inWs(`/dashboard/sites/${siteId}/crawl`));
    expect(first.status, first.text).to.equal(200);
    expect(first.text).to.match(/data-status="(queued|running|done|failed)"/);
    const crawls = await service.store.crawls.list(siteId, 10);
    expect(crawls).to.have.length(1);
    const status = await request(service.server)
      .get(inWs(`/dashboard/sites/${siteId}/crawls`))
      .set({ Cookie: cookie, "HX-Request": "true" })
      .expect(200);
    expect(status.text).to.contain(
      `data-status="${(await service.store.crawls.list(siteId, 1))[0]!.status}"`,
    );
  });

  it("shows what each version changed and restores an earlier one as a new version", async () => {
    const versions = await page(inWs(`/dashboard/sites/${siteId}/versions`)).expect(200);
    expect(versions.text).to.contain("Version 3").and.contain("Version 1");
    const changes = await request(service.server)
      .get(inWs(`/dashboard/sites/${siteId}/versions/2/changes`))
      .set({ Cookie: cookie, "HX-Request": "true" })
      .expect(200);
    expect(decode(changes.text)).to.contain('~ personality: "" → "Speak warmly."');
    const restored = await act(inWs(`/dashboard/sites/${siteId}/versions/1/restore`));
    expect(restored.status).to.equal(204);
    expect(restored.headers["hx-redirect"]).to.contain(`/dashboard/sites/${siteId}/versions`);
    const row = await stored();
    expect(row.version).to.equal(4);
    const view = await service.sites.get(dashboardPrincipal(workspaceId, "test"), siteId);
    expect(view.adapter).to.equal(undefined);
    expect(view.personality).to.equal("");
    const missing = await act(inWs(`/dashboard/sites/${siteId}/versions/99/restore`));
    expect(missing.status).to.equal(404);
    expect((await stored()).version).to.equal(4);
  });

  it("checks the whole site as YAML with validate's own lines, and saves it", async () => {
    const site = await page(inWs(`/dashboard/sites/${siteId}`)).expect(200);
    const yaml = decode(/<textarea id="f-yaml"[^>]*>([\s\S]*?)<\/textarea>/.exec(site.text)![1]!);
    expect(yaml).to.contain(`site_id: ${siteId}`);
    const broken = yaml.replace(/language: .*/, "language: not a tag");
    const checked = await act(inWs(`/dashboard/sites/${siteId}/yaml`), {
      yaml: broken,
      action: "check",
    });
    expect(checked.status).to.equal(422);
    const printed = await validateLines(service.rules, broken, `${siteId}.yaml`);
    expect(printed.length).to.be.greaterThan(0);
    for (const line of printed) expect(decode(checked.text)).to.contain(line);

    const refusedSave = await act(inWs(`/dashboard/sites/${siteId}/yaml`), {
      yaml: broken,
      action: "save",
    });
    expect(refusedSave.status).to.equal(422);
    expect((await stored()).version).to.equal(4);

    const clean = await act(inWs(`/dashboard/sites/${siteId}/yaml`), { yaml, action: "check" });
    expect(clean.text).to.contain("No problems");
    const renamed = yaml.replace("business_name: Bright Smiles", "business_name: Brighter Smiles");
    const saved = await act(inWs(`/dashboard/sites/${siteId}/yaml`), {
      yaml: renamed,
      action: "save",
    });
    expect(saved.headers["hx-redirect"]).to.match(/&saved=5$/);
    expect((await stored()).business_name).to.equal("Brighter Smiles");
    const other = await act(inWs(`/dashboard/sites/${siteId}/yaml`), {
      yaml: renamed.replace(`site_id: ${siteId}`, "site_id: another-site"),
      action: "save",
    });
    expect(other.status).to.equal(422);
    expect(decode(other.text)).to.contain(`must stay "${siteId}"`);
  });

  it("keeps another workspace's sites, a missing session and a cross-site request out", async () => {
    const stranger = await signUp(service, "Else");
    const theirCookie = stranger.cookie;
    const theirWs = stranger.workspaceId;
    const version = (await stored()).version;
    // Their own workspace named, our site asked for: not found, nothing changed.
    const peek = await request(service.server)
      .get(`/dashboard/sites/${siteId}?workspace_id=${theirWs}`)
      .set("Cookie", theirCookie);
    expect(peek.status).to.equal(404);
    expect(peek.text).to.not.contain("Brighter Smiles");
    const change = await request(service.server)
      .post(`/dashboard/sites/${siteId}/yaml?workspace_id=${theirWs}`)
      .set({ Cookie: theirCookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true" })
      .type("form")
      .send({ yaml: "business_name: Mine", action: "save" });
    expect(change.status).to.equal(404);
    // Our workspace named with their cookie: not theirs.
    const named = await request(service.server)
      .post(inWs(`/dashboard/sites/${siteId}/crawl`))
      .set({ Cookie: theirCookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true" })
      .type("form");
    expect(named.status).to.equal(404);

    const anonymousPage = await request(service.server).get(inWs(`/dashboard/sites/${siteId}`));
    expect(anonymousPage.status).to.equal(303);
    expect(anonymousPage.headers.location).to.equal("/dashboard/sign-in");
    const anonymousAction = await request(service.server)
      .post(inWs(`/dashboard/sites/${siteId}/versions/1/restore`))
      .set({ "Sec-Fetch-Site": "same-origin", "HX-Request": "true" })
      .type("form");
    expect(anonymousAction.status).to.equal(401);
    const crossSite = await act(
      inWs(`/dashboard/sites/${siteId}/versions/1/restore`),
      {},
      {
        "Sec-Fetch-Site": "cross-site",
      },
    );
    expect(crossSite.status).to.equal(403);
    expect((await stored()).version).to.equal(version);
  });
  it("saves the settings with optional fields emptied, which take their defaults", async () => {
    const principal = dashboardPrincipal(workspaceId, "test");
    const set = { personality: "Be brief.", timezone: "Europe/Berlin", voice: "verse" };
    await service.sites.patch(principal, siteId, set);
    const site = await page(inWs(`/dashboard/sites/${siteId}`)).expect(200);
    const form = formValues(site.text, "settings-title");
    const saved = await act(inWs(`/dashboard/sites/${siteId}`), {
      ...form,
      personality: "",
      timezone: "",
      voice: "",
    });
    expect(saved.status, saved.text).to.equal(204);
    const view = await service.sites.get(principal, siteId);
    expect([view.personality, view.timezone, view.voice]).to.deep.equal(["", "UTC", "alloy"]);
  });
});
