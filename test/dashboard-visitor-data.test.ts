/**
 * The dashboard's visitor-data page over HTTP, as htmx drives it: a lookup finds the fingerprint
 * of a lead's email or phone (captured by signed widget calls); an export asked from the page is
 * run by the service's job and then listed with its signed download link, which opens; an
 * erasure needs its confirmation, and once run leaves the lead erased; the list filters; a bad
 * input, another workspace's site, no session and a cross-site request refused, nothing created.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { captureLead, newSite, signUp } from "./helpers/dashboard-leads.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** Decodes what Handlebars escaped in an attribute. */
const unescaped = (text: string) => text.replace(/&#x3D;/g, "=").replace(/&amp;/g, "&");

describe("the dashboard's visitor-data page", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let cookie: string;
  let ws: string;
  let shop: string;
  let theirSite: string;
  let ana: { id: string; fingerprint: string };
  let bo: { id: string; fingerprint: string };

  const inWs = (url: string) => `${url}${url.includes("?") ? "&" : "?"}workspace_id=${ws}`;
  const page = (url: string) => request(service.server).get(inWs(url)).set("Cookie", cookie);
  const htmxGet = (url: string) => page(url).set("HX-Request", "true");
  const act = (url: string, form: Record<string, string>, extra: Record<string, string> = {}) =>
    request(service.server)
      .post(inWs(url))
      .set({ Cookie: cookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true", ...extra })
      .type("form")
      .send(form);
  const requests = async () =>
    (await service.store.db.knex("user_data_requests").where({ workspace_id: ws })) as {
      id: string;
      kind: string;
      status: string;
    }[];
  const finished = (id: string) =>
    waitUntil(`request ${id} done`, async () => {
      const row = await service.store.userData.get(id);
      return row?.status === "done";
    });

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      SITEVOICE_JOBS_POLL_MS: "200", // a request runs soon after it is asked
    });
    ({ cookie, workspaceId: ws } = await signUp(service));
    shop = await newSite(service, ws, "Shop");
    ana = await captureLead(service, ws, shop, {
      name: "Ana Silva",
      email: "Ana.Silva@example.com",
      phone: "+1 (503) 555-0100",
    });
    bo = await captureLead(service, ws, shop, { name: "Bo Lind", email: "bo@example.org" });
    const other = await service.workspace();
    theirSite = await newSite(service, other, "Elsewhere");
    await captureLead(service, other, theirSite, { name: "Ana", email: "ana.silva@example.com" });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("shows the forms, every field labelled, and no requests yet", async () => {
    const res = await page("/dashboard/visitor-data").expect(200);
    expect(res.headers["content-security-policy"]).to.contain("script-src 'self'");
    expect(res.text).to.not.match(/<script(?![^>]*\bsrc=)/);
    expect(res.text).to.not.match(/\sstyle=/);
    expect(res.text).to.contain("No requests yet.");
    for (const [, id] of res.text.matchAll(/<(?:input|select)[^>]*\bid="([^"]+)"/g)) {
      expect(res.text, `a label for #${id}`).to.contain(`for="${id}"`);
    }
    expect(res.text).to.contain('name="confirm" type="checkbox" value="yes" required');
    const prefilled = await page(
      `/dashboard/visitor-data?site_id=${shop}&user_fingerprint=${ana.fingerprint}`,
    ).expect(200);
    expect(prefilled.text).to.contain(`value="${ana.fingerprint}" required`);
  });

  it("finds a visitor's fingerprint by the email or phone they left", async () => {
    const byEmail = await htmxGet(
      `/dashboard/visitor-data/lookup?site_id=${shop}&email=ana.silva%40EXAMPLE.com&phone=`,
    ).expect(200);
    expect(byEmail.text).to.contain(ana.fingerprint).and.contain("1 lead,");
    expect(byEmail.text).to.not.contain(bo.fingerprint);
    const byPhone = await htmxGet(
      `/dashboard/visitor-data/lookup?site_id=${shop}&email=&phone=503.555.0100`,
    ).expect(200);
    expect(byPhone.text).to.contain(ana.fingerprint);
    const nobody = await htmxGet(
      `/dashboard/visitor-data/lookup?site_id=${shop}&email=nobody%40example.com`,
    ).expect(200);
    expect(nobody.text).to.contain("No lead on this site holds nobody@example.com");

    const neither = await htmxGet(`/dashboard/visitor-data/lookup?site_id=${shop}&email=&phone=`);
    expect(neither.status).to.equal(400);
    expect(neither.text).to.contain('role="alert"').and.contain("Give either email or phone");
    const theirs = await htmxGet(
      `/dashboard/visitor-data/lookup?site_id=${theirSite}&email=ana.silva%40example.com`,
    );
    expect(theirs.status).to.equal(404);
    expect(theirs.text).to.contain('role="alert"').and.to.not.contain("fingerprint");
  });

  it("asks for an export, which the job runs and lists with its download link", async () => {
    const res = await act("/dashboard/visitor-data/export", {
      site_id: shop,
      user_fingerprint: ` ${ana.fingerprint.toUpperCase()} `,
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.contain("An export is asked for");
    expect(res.headers["hx-trigger"]).to.equal("visitor-data-changed");
    const [made] = await requests();
    expect(made).to.include({ kind: "export" });
    expect(res.text).to.contain(made!.id);
    await finished(made!.id);

    const list = await htmxGet("/dashboard/visitor-data/requests").expect(200);
    expect(list.text).to.contain(`id="request-${made!.id}"`).and.contain("leads: 1");
    const href = /href="(\/v1\/user-data\/exports\/[^"]+)" download/.exec(list.text)?.[1];
    expect(href, list.text).to.be.a("string");
    const link = unescaped(href!);
    expect(link).to.match(
      new RegExp(
        `^/v1/user-data/exports/${made!.id}/download\\?expires=\\d+&signature=[0-9a-f]{64}$`,
      ),
    );
    const document = await request(service.server).get(link).expect(200);
    const exported = JSON.parse(document.text) as { leads: { id: string }[] };
    expect(exported.leads.map((l) => l.id)).to.deep.equal([ana.id]);
    expect(list.text, "done: no more polling").to.not.contain("every 3s");
  });

  it("refuses an erasure without its confirmation, creating nothing", async () => {
    const before = (await requests()).length;
    for (const confirm of [{}, { confirm: "no" }] as Record<string, string>[]) {
      const res = await act("/dashboard/visitor-data/delete", {
        site_id: shop,
        user_fingerprint: bo.fingerprint,
        ...confirm,
      });
      expect(res.status).to.equal(400);
      expect(res.text).to.contain('role="alert"').and.contain("confirm the erasure");
    }
    expect(await requests()).to.have.length(before);
  });

  it("erases a confirmed visitor: the lead shows erased, the list its counts", async () => {
    const res = await act("/dashboard/visitor-data/delete", {
      site_id: shop,
      user_fingerprint: bo.fingerprint,
      confirm: "yes",
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.contain("An erasure is asked for");
    const erasure = (await requests()).find((r) => r.kind === "delete")!;
    await finished(erasure.id);
    const leads = await page("/dashboard/leads").expect(200);
    const row = leads.text.slice(leads.text.indexOf(`<tr id="lead-${bo.id}"`));
    expect(row.slice(0, row.indexOf("</tr>"))).to.contain('class="erased">erased<');
    expect(row.slice(0, row.indexOf("</tr>"))).to.not.contain("Bo Lind");

    const erasures = await page("/dashboard/visitor-data?kind=delete").expect(200);
    expect(erasures.text).to.contain(`id="request-${erasure.id}"`).and.contain("leads erased: 1");
    expect(erasures.text).to.not.contain(`id="request-${(await requests())[0]!.id}"`);
    expect(erasures.text).to.contain('<option value="delete" selected>');
    const failed = await page("/dashboard/visitor-data?status=failed").expect(200);
    expect(failed.text).to.contain("No request matches these filters.");
    const badKind = await page("/dashboard/visitor-data?kind=purge");
    expect(badKind.status).to.equal(400);
    expect(badKind.text).to.contain("kind must be one of export, delete");
  });

  it("refuses a bad site or fingerprint and another workspace's site, creating nothing", async () => {
    const before = (await requests()).length;
    const cases: [Record<string, string>, number, string][] = [
      [{ site_id: "no-such-site", user_fingerprint: ana.fingerprint }, 404, "no-such-site"],
      [{ site_id: shop, user_fingerprint: "not-a-fingerprint" }, 400, "user_fingerprint"],
      [{ user_fingerprint: ana.fingerprint }, 400, "site_id"],
      [{ site_id: theirSite, user_fingerprint: ana.fingerprint }, 404, theirSite],
    ];
    for (const [form, status, shown] of cases) {
      for (const kind of ["export", "delete"]) {
        const res = await act(`/dashboard/visitor-data/${kind}`, { ...form, confirm: "yes" });
        expect(res.status, `${kind} ${JSON.stringify(form)}`).to.equal(status);
        expect(res.text).to.contain('role="alert"').and.contain(shown);
      }
    }
    const theirList = await page(`/dashboard/visitor-data?site_id=${theirSite}`);
    expect(theirList.status).to.equal(404);
    expect(await requests()).to.have.length(before);
    const theirRequests = await service.store.db
      .knex("user_data_requests")
      .where({ site_id: theirSite });
    expect(theirRequests).to.have.length(0);
  });

  it("keeps a missing session and a cross-site request out", async () => {
    const before = (await requests()).length;
    const anonymousPage = await request(service.server).get(inWs("/dashboard/visitor-data"));
    expect(anonymousPage.status).to.equal(303);
    expect(anonymousPage.headers.location).to.equal("/dashboard/sign-in");
    const anonymousLookup = await request(service.server)
      .get(inWs(`/dashboard/visitor-data/lookup?site_id=${shop}&email=ana.silva%40example.com`))
      .set("HX-Request", "true");
    expect(anonymousLookup.status).to.equal(401);
    const form = { site_id: shop, user_fingerprint: ana.fingerprint };
    const anonymousAsk = await request(service.server)
      .post(inWs("/dashboard/visitor-data/export"))
      .set({ "Sec-Fetch-Site": "same-origin", "HX-Request": "true" })
      .type("form")
      .send(form);
    expect(anonymousAsk.status).to.equal(401);
    const crossSite = await act("/dashboard/visitor-data/export", form, {
      "Sec-Fetch-Site": "cross-site",
    });
    expect(crossSite.status).to.equal(403);
    expect(await requests()).to.have.length(before);
  });
});

describe("the dashboard's visitor-data page while requests wait", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      SITEVOICE_JOBS: "off", // requests stay pending
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("answers the open request when asked again, and watches the list while one is open", async () => {
    const { cookie, workspaceId: ws } = await signUp(service);
    const siteId = await newSite(service, ws, "Waiting");
    const fingerprint = crypto.randomBytes(32).toString("hex");
    const ask = () =>
      request(service.server)
        .post(`/dashboard/visitor-data/export?workspace_id=${ws}`)
        .set({ Cookie: cookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true" })
        .type("form")
        .send({ site_id: siteId, user_fingerprint: fingerprint });
    const first = await ask().expect(200);
    expect(first.text).to.contain("An export is asked for");
    const again = await ask().expect(200);
    expect(again.text).to.contain("already asked for and still pending");
    const rows = await service.store.db.knex("user_data_requests").where({ workspace_id: ws });
    expect(rows).to.have.length(1);
    expect(again.text).to.contain(rows[0].id);

    const list = await request(service.server)
      .get(`/dashboard/visitor-data/requests?workspace_id=${ws}&kind=export`)
      .set({ Cookie: cookie, "HX-Request": "true" })
      .expect(200);
    expect(list.text).to.contain('hx-trigger="every 3s, visitor-data-changed from:body"');
    expect(list.text).to.contain('data-status="pending"').and.to.not.contain("Download");
    const poll = new URL(unescaped(/hx-get="([^"]+)"/.exec(list.text)![1]!), service.url);
    expect(poll.pathname).to.equal("/dashboard/visitor-data/requests");
    expect(Object.fromEntries(poll.searchParams)).to.deep.equal({
      kind: "export",
      workspace_id: ws,
    });
  });
});
