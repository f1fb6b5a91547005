/**
 * "What the assistant knows" on a site's dashboard page: the panel and its labelled search box,
 * the summary htmx loads into it (counts, the pages with their section counts, what failed to
 * index) and the passages its search shows, on a site whose crawl found nothing; who may see it.
 * A crawled site's panel is in knowledge-search.test.ts.
 */
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { signUp, type Member } from "./helpers/session-cookie.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the site page's knowledge panel", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let service: TestService;
  let member: Member;
  const siteId = "harbour-dental";
  let foreignSiteId: string;

  /** A dashboard GET by the member, as htmx sends it when `htmx` (else as a page). */
  const get = (path: string, htmx = true) =>
    request(service.server)
      .get(`${path}${path.includes("?") ? "&" : "?"}workspace_id=${member.workspaceId}`)
      .set({ Cookie: member.cookie, ...(htmx ? { "HX-Request": "true" } : {}) });

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      SITEVOICE_JOBS: "off",
    });
    member = await signUp(service);
    const site = (id: string) => ({
      site_id: id,
      business_name: "Harbour Dental",
      business_description: "",
      domain: `${id}.example`,
    });
    await service.sites.create(operatorPrincipal(member.workspaceId, "test"), site(siteId));
    foreignSiteId = "elsewhere-dental";
    await service.sites.create(
      operatorPrincipal(await service.workspace(), "test"),
      site(foreignSiteId),
    );
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("has the panel on the site's page, loading its summary, with a labelled search box", async () => {
    const res = await get(`/dashboard/sites/${siteId}`, false).expect(200);
    expect(res.text).to.include('<h2 id="knowledge-title">What the assistant knows</h2>');
    expect(res.text).to.include(`hx-get="/dashboard/sites/${siteId}/knowledge?workspace_id=`);
    expect(res.text).to.match(/<label for="f-knowledge-q">[^<]+<\/label>/);
    expect(res.text).to.match(
      /<input id="f-knowledge-q" name="q" type="search"[^>]*maxlength="500"/,
    );
    expect(res.text).to.include(
      `hx-get="/dashboard/sites/${siteId}/knowledge/search?workspace_id=`,
    );
  });

  it("says the assistant knows nothing yet of a site whose crawl found nothing", async () => {
    const res = await get(`/dashboard/sites/${siteId}/knowledge`).expect(200);
    expect(res.text).to.include("Nothing yet");
    expect(res.text).to.not.include("<table");
  });

  it("answers a question on a site without knowledge with nothing found", async () => {
    const res = await get(`/dashboard/sites/${siteId}/knowledge/search?q=parking`).expect(200);
    expect(res.text).to.include("Nothing on the site's pages answers");
    expect(res.text).to.include("parking");
  });

  it("escapes the question it repeats", async () => {
    const res = await get(
      `/dashboard/sites/${siteId}/knowledge/search?q=${encodeURIComponent("<b>x</b>")}`,
    ).expect(200);
    expect(res.text).to.include("&lt;b&gt;x&lt;/b&gt;");
    expect(res.text).to.not.include("<b>x</b>");
  });

  it("refuses an empty question with a message in an alert", async () => {
    const res = await get(`/dashboard/sites/${siteId}/knowledge/search?q=`).expect(400);
    expect(res.text).to.match(/role="alert"[^>]*>[^<]*question is required/);
  });

  it("refuses a question of 2,000 characters with a message in an alert", async () => {
    const res = await get(
      `/dashboard/sites/${siteId}/knowledge/search?q=${"a".repeat(2000)}`,
    ).expect(400);
    expect(res.text).to.match(/role="alert"[^>]*>[^<]*at most 500 characters/);
  });

  it("answers 404 for another workspace's site, its summary and its search", async () => {
    await get(`/dashboard/sites/${foreignSiteId}/knowledge`).expect(404);
    await get(`/dashboard/sites/${foreignSiteId}/knowledge/search?q=parking`).expect(404);
  });

  it("answers 401 to a visitor without a session", async () => {
    await request(service.server)
      .get(`/dashboard/sites/${siteId}/knowledge?workspace_id=${member.workspaceId}`)
      .set("HX-Request", "true")
      .expect(401);
  });
});
