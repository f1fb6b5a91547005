/**
 * The dashboard's leads page over HTTP, as htmx drives it: the workspace's leads (captured by
 * signed widget calls) listed newest first with their details, filtered by site and status and
 * paged by cursor; a status changed in place through the API's update (read back by key, with
 * `lead.updated` stored); a bad status, another workspace's lead, no session and a cross-site
 * request refused with nothing changed.
 */
import { expect } from "chai";
import request from "supertest";
import { encodeCursor } from "../core/http/pagination.ts";
import { captureLead, newSite, signUp } from "./helpers/dashboard-leads.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** The ids of the lead rows a page or fragment shows, in order. */
const rowsOf = (html: string) => [...html.matchAll(/<tr id="lead-([^"]+)"/g)].map((m) => m[1]);

describe("the dashboard's leads page", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let cookie: string;
  let ws: string;
  let key: string;
  let shop: string;
  let clinic: string;
  let ana: { id: string; fingerprint: string };
  let bo: { id: string; fingerprint: string };
  let cy: { id: string; fingerprint: string };
  let theirs: { id: string; fingerprint: string };

  const page = (url: string) => request(service.server).get(url).set("Cookie", cookie);
  const change = (leadId: string, form: Record<string, string>, extra = {}) =>
    request(service.server)
      .post(`/dashboard/leads/${leadId}?workspace_id=${ws}`)
      .set({ Cookie: cookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true", ...extra })
      .type("form")
      .send(form);
  /** The lead as `GET /v1/leads` answers it, with a key of its workspace. */
  const byKey = async (leadId: string, auth = key) => {
    const res = await request(service.server)
      .get("/v1/leads?limit=200")
      .set("Authorization", `Bearer ${auth}`)
      .expect(200);
    return (res.body.data as { id: string; status: string }[]).find((l) => l.id === leadId)!;
  };
  const updates = async (leadId: string) =>
    (await service.store.db.knex("service_events").where({ type: "lead.updated" }))
      .map((row: { data: string }) => JSON.parse(row.data))
      .filter((data: { lead: { id: string } }) => data.lead.id === leadId);

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_SIGNUP: "open" });
    ({ cookie, workspaceId: ws } = await signUp(service, "Acme"));
    key = await service.key(ws, { scopes: ["sites:read", "sites:write"] });
    // A sign-up's free plan holds one site: this workspace has two.
    await service.store.db.knex("workspaces").where({ id: ws }).update({ plan: "business" });
    shop = await newSite(service, ws, "Shop");
    clinic = await newSite(service, ws, "Clinic");
    ana = await captureLead(service, ws, shop, {
      name: "Ana Silva",
      email: "ana@example.com",
      message: `Wants the Oslo sofa in blue. ${"Very long details. ".repeat(20)}`,
    });
    bo = await captureLead(service, ws, shop, { name: "Bo Lind", phone: "+44 20 7946 0958" });
    cy = await captureLead(service, ws, clinic, { name: "Cy Park", email: "cy@example.org" });
    const other = await signUp(service, "Other");
    const otherSite = await newSite(service, other.workspaceId, "Elsewhere");
    theirs = await captureLead(service, other.workspaceId, otherSite, {
      name: "Dee Other",
      email: "dee@example.net",
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("lists the workspace's leads newest first, with what each holds", async () => {
    const res = await page(`/dashboard/leads?workspace_id=${ws}`).expect(200);
    expect(res.headers["content-security-policy"]).to.contain("script-src 'self'");
    expect(res.text).to.not.match(/<script(?![^>]*\bsrc=)/);
    expect(res.text).to.not.match(/\sstyle=/);
    expect(rowsOf(res.text)).to.deep.equal([cy.id, bo.id, ana.id]);
    expect(res.text).to.not.contain("Dee Other");
    const anaRow = rowOf(res.text, ana.id);
    expect(anaRow).to.contain("Ana Silva").and.contain("mailto:ana@example.com");
    expect(anaRow).to.contain(ana.fingerprint).and.contain(">Shop<");
    expect(anaRow).to.contain("Wants the Oslo sofa in blue.").and.contain("…");
    expect(anaRow).to.not.contain("Very long details. ".repeat(8));
    expect(anaRow).to.contain('data-status="new"');
    expect(rowOf(res.text, bo.id)).to.contain("+44 20 7946 0958");
    expect(rowOf(res.text, cy.id)).to.contain(">Clinic<");
    expect(res.text).to.contain(`<option value="${shop}" >Shop (${shop})</option>`);
  });

  it("filters by site and by status, and refuses a filter that is not one", async () => {
    const bySite = await page(`/dashboard/leads?workspace_id=${ws}&site_id=${shop}&status=`);
    expect(rowsOf(bySite.text)).to.deep.equal([bo.id, ana.id]);
    expect(bySite.text).to.contain(`<option value="${shop}" selected>`);
    await request(service.server)
      .patch(`/v1/public/leads/${bo.id}`)
      .set("Authorization", `Bearer ${key}`)
      .send({ status: "qualified" })
      .expect(200);
    const byStatus = await page(`/dashboard/leads?workspace_id=${ws}&status=qualified`);
    expect(rowsOf(byStatus.text)).to.deep.equal([bo.id]);
    const none = await page(
      `/dashboard/leads?workspace_id=${ws}&site_id=${clinic}&status=qualified`,
    ).expect(200);
    expect(rowsOf(none.text)).to.deep.equal([]);
    expect(none.text).to.contain("No lead matches these filters.");

    const badStatus = await page(`/dashboard/leads?workspace_id=${ws}&status=sold`);
    expect(badStatus.status).to.equal(400);
    expect(badStatus.text).to.contain('role="alert"').and.contain("status must be one of");
    const theirSite = await page(`/dashboard/leads?workspace_id=${ws}&site_id=elsewhere-x`);
    expect(theirSite.status).to.equal(404);
  });

  it("pages with the cursor, older leads after the newest", async () => {
    const row = await service.store.db.knex("leads").where({ id: bo.id }).first();
    const cursor = encodeCursor({ created_at: Number(row.created_at), id: bo.id });
    const older = await page(`/dashboard/leads?workspace_id=${ws}&cursor=${cursor}`).expect(200);
    expect(rowsOf(older.text)).to.deep.equal([ana.id]);
    expect(older.text).to.contain("Newest leads");
    const garbage = await page(`/dashboard/leads?workspace_id=${ws}&cursor=nope`);
    expect(garbage.status).to.equal(400);
  });

  it("changes a lead's status in place, as the API's update does", async () => {
    const res = await change(ana.id, { status: "won" });
    expect(res.status, res.text).to.equal(200);
    expect(rowsOf(res.text)).to.deep.equal([ana.id]);
    expect(res.text).to.contain('data-status="won"').and.contain('value="won" selected');
    expect(res.text).to.contain("Now won.");
    expect((await byKey(ana.id)).status).to.equal("won");
    const [updated] = await updates(ana.id);
    expect(updated.changes).to.deep.equal({ status: "won" });
    expect(updated.lead).to.include({ id: ana.id, status: "won" });
  });

  it("refuses a status that is not one, in the form that asked, changing nothing", async () => {
    for (const form of [{ status: "sold" }, {} as Record<string, string>]) {
      const res = await change(cy.id, form);
      expect(res.status).to.equal(400);
      expect(res.text).to.contain('role="alert"').and.contain("status must be one of");
      expect(res.headers["hx-retarget"]).to.equal("find .answer");
    }
    expect((await byKey(cy.id)).status).to.equal("new");
    expect(await updates(cy.id)).to.have.length(0);
  });

  it("keeps another workspace's leads, a missing session and a cross-site request out", async () => {
    const foreign = await change(theirs.id, { status: "spam" });
    expect(foreign.status).to.equal(404);
    expect(foreign.text).to.contain('role="alert"');
    const notMine = await request(service.server)
      .post(`/dashboard/leads/${cy.id}?workspace_id=ws_elsewhere`)
      .set({ Cookie: cookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true" })
      .type("form")
      .send({ status: "spam" });
    expect(notMine.status).to.equal(404);

    const anonymousPage = await request(service.server).get(`/dashboard/leads?workspace_id=${ws}`);
    expect(anonymousPage.status).to.equal(303);
    expect(anonymousPage.headers.location).to.equal("/dashboard/sign-in");
    const anonymousAction = await request(service.server)
      .post(`/dashboard/leads/${cy.id}?workspace_id=${ws}`)
      .set({ "Sec-Fetch-Site": "same-origin", "HX-Request": "true" })
      .type("form")
      .send({ status: "spam" });
    expect(anonymousAction.status).to.equal(401);
    const crossSite = await change(cy.id, { status: "spam" }, { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).to.equal(403);

    expect(await updates(theirs.id)).to.have.length(0);
    expect(await updates(cy.id)).to.have.length(0);
    const theirRow = await service.store.leads.get(theirs.id);
    expect(theirRow?.status).to.equal("new");
  });
});

/** The HTML of one lead's row. */
function rowOf(html: string, leadId: string): string {
  const start = html.indexOf(`<tr id="lead-${leadId}"`);
  expect(start, `a row for ${leadId}`).to.be.greaterThan(-1);
  return html.slice(start, html.indexOf("</tr>", start));
}
