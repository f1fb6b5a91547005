/**
 * The usage page's live tail over real sockets (`GET /dashboard/usage/stream`, the cookie its only
 * credential): an event recorded through the signed widget API arriving as the API's stream sends
 * it, heartbeats, replay after Last-Event-ID; its place freed when the client leaves, the stream
 * ended once its session is signed out, the site's limit of open streams shared with the API's;
 * and another workspace's site, a bad Accept or Last-Event-ID refused in the envelope.
 */
import { expect } from "chai";
import request from "supertest";
import { STREAM_LIMITS } from "../core/routes/analytics-stream-routes.ts";
import {
  listedEvents,
  openSession,
  PASSWORD,
  record,
  signUp,
  siteOf,
  type Member,
  type UsageSite,
} from "./helpers/dashboard-usage.ts";
import { cookieOf } from "./helpers/session-cookie.ts";
import { openStream, type SseStream } from "./helpers/sse-client.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const SSE = { Accept: "text/event-stream" };

describe("the usage page's live tail", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;
  let member: Member;
  let site: UsageSite;
  let other: Member;
  let otherSite: UsageSite;
  const streams: SseStream[] = [];

  const q = (params: Record<string, string>, workspaceId = member.workspaceId) =>
    new URLSearchParams({ workspace_id: workspaceId, ...params }).toString();
  const stream = async (params: string, headers: Record<string, string>) => {
    const opened = await openStream(`${service.url}/dashboard/usage/stream?${params}`, headers);
    streams.push(opened);
    return opened;
  };

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      SITEVOICE_STREAM_HEARTBEAT_MS: "200",
    });
    member = await signUp(service, "Usage agency");
    site = await siteOf(service, member, {
      site_id: "usage-cafe",
      business_name: "Usage Cafe",
      timezone: "Asia/Kolkata",
    });
    other = await signUp(service, "Someone else");
    otherSite = await siteOf(service, other, {
      site_id: "other-cafe",
      business_name: "Other Cafe",
      timezone: "UTC",
    });
  });
  afterEach(() => {
    for (const opened of streams.splice(0)) opened.close();
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("streams each event recorded on the site to the live tail, with heartbeats", async () => {
    const live = await stream(q({ site_id: site.siteId }), { ...SSE, Cookie: member.cookie });
    expect(live.status).to.equal(200);
    expect(live.headers["content-type"]).to.match(/^text\/event-stream/);
    await waitUntil("the stream subscribed", () => service.usageStream.count(site.siteId) === 1);
    const session = await openSession(service, site, 1_000);
    const id = await record(service, session, {
      type: "function_call",
      function_name: "book_table",
    });
    const [event] = await live.waitFor(1);
    expect(event).to.include({ event: "usage_event", id });
    expect(JSON.parse(event!.data)).to.deep.equal((await listedEvents(service, site))[0]);
    expect(JSON.parse(event!.data)).to.include({
      type: "function_call",
      function_name: "book_table",
    });
    await waitUntil("heartbeats", () => live.comments >= 2);
    expect(live.retry).to.equal(2000);
    // From the id it saw last, a client reconnecting gets what came after, from the store.
    const later = await record(service, session, { type: "db_query" });
    await live.waitFor(2);
    live.close();
    const again = await stream(q({ site_id: site.siteId }), {
      ...SSE,
      Cookie: member.cookie,
      "Last-Event-ID": id,
    });
    expect((await again.waitFor(1)).map((e) => e.id)).to.deep.equal([later]);
  });

  it("closes its place when the client leaves, ends at sign-out, and refuses past the site's limit", async () => {
    const live = await stream(q({ site_id: site.siteId }), { ...SSE, Cookie: member.cookie });
    await waitUntil("subscribed", () => service.usageStream.count(site.siteId) === 1);
    live.close();
    await waitUntil("unsubscribed", () => service.usageStream.count(site.siteId) === 0);

    const signin = await request(service.server)
      .post("/v1/auth/signin")
      .send({ email: member.email, password: PASSWORD })
      .expect(200);
    const second = cookieOf(signin);
    const ending = await stream(q({ site_id: site.siteId }), { ...SSE, Cookie: second });
    expect(ending.status).to.equal(200);
    await request(service.server)
      .post("/v1/auth/signout")
      .set({ Cookie: second, "Sec-Fetch-Site": "same-origin" })
      .expect(200);
    await ending.waitForEnd();
    await waitUntil("unsubscribed", () => service.usageStream.count(site.siteId) === 0);

    const full: SseStream[] = [];
    for (let i = 0; i < STREAM_LIMITS.perSite; i += 1) {
      full.push(await stream(q({ site_id: site.siteId }), { ...SSE, Cookie: member.cookie }));
    }
    expect(full.map((s) => s.status)).to.deep.equal(full.map(() => 200));
    await waitUntil("all subscribed", () => service.usageStream.count(site.siteId) === full.length);
    const refused = await stream(q({ site_id: site.siteId }), { ...SSE, Cookie: member.cookie });
    expect(refused.status).to.equal(429);
    expect(refused.headers["retry-after"]).to.equal("30");
    expect(JSON.parse(refused.body).error.code).to.equal("rate_limited");
  });

  it("refuses to stream another workspace's site, a bad Accept or Last-Event-ID", async () => {
    const cases: [string, Record<string, string>, number, string][] = [
      [q({ site_id: otherSite.siteId }), {}, 404, "site_not_found"],
      [`workspace_id=${other.workspaceId}&site_id=${otherSite.siteId}`, {}, 404, "not_found"],
      [q({ site_id: site.siteId }), { Accept: "application/json" }, 406, "not_acceptable"],
      [q({ site_id: site.siteId }), { "Last-Event-ID": "nope" }, 400, "invalid_params"],
      [q({ site_id: site.siteId, range: "7d" }), {}, 400, "invalid_params"],
      [q({}), {}, 400, "invalid_params"],
    ];
    for (const [query, headers, status, code] of cases) {
      const refused = await stream(query, { ...SSE, Cookie: member.cookie, ...headers });
      await refused.waitForEnd();
      expect(refused.status, query).to.equal(status);
      expect(JSON.parse(refused.body).error.code, query).to.equal(code);
    }
    expect(service.usageStream.count(otherSite.siteId)).to.equal(0);
  });
});
