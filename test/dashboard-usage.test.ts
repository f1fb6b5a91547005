/**
 * The dashboard's usage page over HTTP, on events written through the signed widget API to a site
 * made through the API: the chart data (`/dashboard/usage/data`) for each range equal to a
 * recomputation from the events the API lists and to the API's own summary; the page with the
 * same totals and top functions as text, its charts' holders and no inline script or style; and
 * another workspace's site, no session and bad parameters refused (as HTML on the page, in the
 * envelope for the data and the live tail, whose stream dashboard-usage-stream.test.ts tests).
 */
import { expect } from "chai";
import request from "supertest";
import {
  expectedSummary,
  listedEvents,
  signUp,
  siteOf,
  visit,
  type Figures,
  type Member,
  type UsageSite,
} from "./helpers/dashboard-usage.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const KOLKATA = 330; // minutes east of UTC, all year
const RANGES = {
  "24h": { bucket: "hour", api: "period=day&bucket=hour", buckets: [24, 25] },
  "7d": { bucket: "day", api: "period=week&bucket=day", buckets: [7, 8] },
  "30d": { bucket: "day", api: "period=month&bucket=day", buckets: [30, 31] },
  "90d": { bucket: "week", api: "period=quarter&bucket=week", buckets: [13, 15] },
  "365d": { bucket: "week", api: "period=year&bucket=week", buckets: [53, 54] },
} as const;
const SSE = { Accept: "text/event-stream" };

const busy = (figures: Figures) =>
  figures.sessions + figures.minutes + figures.function_calls + figures.db_queries > 0 ||
  figures.cost_cents !== undefined;

describe("the dashboard's usage page", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;
  let member: Member;
  let site: UsageSite;
  let other: Member;
  let otherSite: UsageSite;

  /** A GET with the member's cookie, another's, or none (null). */
  const get = (path: string, cookie: string | null = member.cookie) => {
    const call = request(service.server).get(path);
    return cookie === null ? call : call.set("Cookie", cookie);
  };
  const q = (params: Record<string, string>, workspaceId = member.workspaceId) =>
    new URLSearchParams({ workspace_id: workspaceId, ...params }).toString();

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_SIGNUP: "open" });
    member = await signUp(service, "Usage agency");
    site = await siteOf(service, member, {
      site_id: "usage-cafe",
      business_name: "Usage Cafe",
      timezone: "Asia/Kolkata",
    });
    await visit(service, site, {
      agoMs: 185_000,
      functions: ["search_database", "search_database", "scroll_to"],
      queries: 2,
      costCents: 42.5,
    });
    await visit(service, site, { agoMs: 64_000, functions: ["search_database", "submit_lead"] });
    other = await signUp(service, "Someone else");
    otherSite = await siteOf(service, other, {
      site_id: "other-cafe",
      business_name: "Other Cafe",
      timezone: "UTC",
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("answers each range's buckets, totals and top functions as the events written say", async () => {
    const events = await listedEvents(service, site);
    expect(events).to.have.length(11);
    for (const [range, { bucket, api, buckets }] of Object.entries(RANGES)) {
      const res = await get(`/dashboard/usage/data?${q({ site_id: site.siteId, range })}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.headers["cache-control"]).to.equal("no-store");
      expect(res.body.meta).to.include({ range, bucket });
      const data = res.body.data;
      const expected = expectedSummary(events, bucket, KOLKATA);
      expect(data.timezone).to.equal("Asia/Kolkata");
      expect(data.totals, range).to.deep.equal(expected.totals);
      expect(data.top_functions, range).to.deep.equal(expected.top_functions);
      expect(data.buckets.filter(busy), range).to.deep.equal(expected.buckets);
      expect(data.buckets.length, range).to.be.within(buckets[0], buckets[1]);
      // The API's summary for the same period and bucket says the same.
      const fromApi = await request(service.server)
        .get(`/v1/${site.siteId}/analytics/summary?${api}`)
        .set("Authorization", `Bearer ${site.key}`)
        .expect(200);
      expect(fromApi.body.data.totals, range).to.deep.equal(data.totals);
      expect(fromApi.body.data.top_functions, range).to.deep.equal(data.top_functions);
      expect(fromApi.body.data.buckets.filter(busy), range).to.deep.equal(expected.buckets);
    }
    const totals = expectedSummary(events, "day", KOLKATA).totals;
    expect(totals).to.include({ sessions: 2, function_calls: 5, db_queries: 2, cost_cents: 42.5 });
    expect(totals.minutes).to.be.above(4); // two visits of about 3 and 1 minutes
  });

  it("draws the page: the site and range chosen, totals and top functions as text, no inline script", async () => {
    const events = await listedEvents(service, site);
    const { totals } = expectedSummary(events, "day", KOLKATA);
    const res = await get(`/dashboard/usage?${q({})}`).expect(200);
    expect(res.headers["content-security-policy"]).to.contain("script-src 'self'");
    expect(res.text).to.not.match(/<script(?![^>]*\bsrc=)/);
    expect(res.text).to.not.match(/\sstyle=/);
    expect(res.text).to.not.match(/(src|href)="https?:\/\//);
    expect(res.text).to.match(/src="\/dashboard\/static\/uplot\.js\?v=[0-9a-f]{12}"/);
    expect(res.text).to.match(/src="\/dashboard\/static\/usage\.js\?v=[0-9a-f]{12}"/);
    expect(res.text).to.match(/href="\/dashboard\/static\/uplot\.css\?v=[0-9a-f]{12}"/);
    // The workspace's only site, over the last 7 days by default.
    expect(res.text).to.contain(
      '<option value="usage-cafe" selected>Usage Cafe (usage-cafe)</option>',
    );
    expect(res.text).to.contain('<option value="7d" selected>');
    expect(res.text).to.contain(`<dd data-total="sessions">${totals.sessions}</dd>`);
    expect(res.text).to.contain(`<dd data-total="minutes">${totals.minutes}</dd>`);
    expect(res.text).to.contain('<dd data-total="cost">$0.425</dd>');
    expect(res.text).to.contain('<dd data-total="function_calls">5</dd>');
    expect(res.text).to.contain('<dd data-total="db_queries">2</dd>');
    for (const field of ["sessions", "minutes", "cost_cents"]) {
      expect(res.text).to.match(
        new RegExp(`class="usage-plot" role="img" data-field="${field}" aria-label="[^"]+ in all`),
      );
    }
    const rows = [
      ...res.text.matchAll(/<tr><td><code>([a-z_]+)<\/code><\/td><td>(\d+)<\/td><\/tr>/g),
    ];
    expect(rows.map((m) => [m[1], Number(m[2])])).to.deep.equal([
      ["search_database", 3],
      ["scroll_to", 1],
      ["submit_lead", 1],
    ]);
    const source = /data-source="\/dashboard\/usage\/data\?([^"]+)"/.exec(res.text)![1]!;
    const params = new URLSearchParams(source.replaceAll("&#x3D;", "=").replaceAll("&amp;", "&"));
    expect(Object.fromEntries(params)).to.deep.equal({
      workspace_id: member.workspaceId,
      site_id: "usage-cafe",
      range: "7d",
    });
    const hourly = await get(
      `/dashboard/usage?${q({ site_id: site.siteId, range: "24h" })}`,
    ).expect(200);
    expect(hourly.text).to.contain('<option value="24h" selected>');
    expect(hourly.text).to.contain("Sessions per hour");
    expect(hourly.text).to.match(/<th scope="row">\d{4}-\d\d-\d\d \d\d:00 \(\+05:30\)<\/th>/);
  });

  it("offers a workspace without sites to add one, and shows a site without cost or calls", async () => {
    const empty = await signUp(service, "Nothing yet");
    const none = await get(`/dashboard/usage?${q({}, empty.workspaceId)}`, empty.cookie).expect(
      200,
    );
    expect(none.text).to.contain("No sites yet");
    expect(none.text).to.not.contain("usage.js");
    const quiet = await get(`/dashboard/usage?${q({}, other.workspaceId)}`, other.cookie).expect(
      200,
    );
    expect(quiet.text).to.contain('<dd data-total="cost">not known yet</dd>');
    expect(quiet.text).to.contain("No function calls in this range.");
    expect(quiet.text).to.not.contain('data-field="cost_cents"');
  });

  it("refuses another workspace's site, no session and bad parameters", async () => {
    const theirs = q({ site_id: otherSite.siteId });
    const page = await get(`/dashboard/usage?${theirs}`).expect(404);
    expect(page.headers["content-type"]).to.match(/^text\/html/);
    expect(page.text).to.not.contain("Other Cafe");
    const data = await get(`/dashboard/usage/data?${theirs}`).expect(404);
    expect(data.body.error.code).to.equal("site_not_found");
    const unknown = await get(`/dashboard/usage/data?${q({ site_id: "no-such-site" })}`).expect(
      404,
    );
    expect(unknown.body.error.code).to.equal("site_not_found");
    const workspace = `workspace_id=${other.workspaceId}&site_id=${otherSite.siteId}`;
    expect((await get(`/dashboard/usage/data?${workspace}`).expect(404)).body.error.code).to.equal(
      "not_found",
    );
    const noSession = await get(`/dashboard/usage?${q({})}`, null).expect(303);
    expect(noSession.headers.location).to.equal("/dashboard/sign-in");
    const mine = q({ site_id: site.siteId });
    for (const path of [`/dashboard/usage/data?${mine}`, `/dashboard/usage/stream?${mine}`]) {
      for (const cookie of [null, "sv_session=nope"]) {
        const res = await get(path, cookie).set(SSE).expect(401);
        expect(res.body).to.include({ success: false });
        expect(res.body.error.code).to.equal("unauthorized");
      }
    }
    const cases: [string, string][] = [
      [q({ site_id: site.siteId, range: "fortnight" }), "range"],
      [q({ range: "7d" }), "site_id"],
      [`${mine}&period=year`, "period"],
    ];
    for (const [query, field] of cases) {
      const res = await get(`/dashboard/usage/data?${query}`).expect(400);
      expect(res.body.error).to.include({ code: "invalid_params" });
      expect(res.body.error.details.field).to.equal(field);
    }
    const badPage = await get(`/dashboard/usage?${q({ range: "fortnight" })}`).expect(400);
    expect(badPage.text).to.contain("range must be one of 24h, 7d, 30d, 90d, 365d");
  });
});
