/**
 * `GET /v1/:siteId/visitor`, the visitor's own fingerprint for the widget's privacy notice: a
 * hash of the request's IP and User-Agent keyed by the site's workspace (what a visitor quotes in
 * a data request, so it must be exactly the one their sessions are stored under), never cached,
 * behind the site's Origin like config, 30 a minute per IP. The token's `user_fingerprint` is the
 * same value for the same browser. (visitor-ids.test.ts checks the per-workspace rule on every
 * database.)
 *
 * Each test's visitor has an address of its own (`X-Forwarded-For` from a trusted loopback
 * proxy), so the per-IP limit is counted per test.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request, { type Response } from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { inlineSiteWithSession, type WidgetSession } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) " +
  "Version/17.5 Safari/605.1.15";

const statuses = (responses: Response[]) =>
  responses.reduce<Record<number, number>>((count, r) => {
    count[r.status] = (count[r.status] ?? 0) + 1;
    return count;
  }, {});

describe("the visitor endpoint", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let openai: OpenAiStandin;
  let service: TestService;
  let site: WidgetSession;
  let visitors = 0;
  /** This test's visitor's address, and another of its own. */
  let ip: string;
  let otherIp: string;

  /** What the service computes for a browser on the site. */
  const fingerprintOf = (visitor: { ip: string; userAgent: string }) =>
    service.sessions.fingerprint(site.workspaceId, visitor);

  /** GET visitor as a browser on `origin` with `userAgent` from `from` sends it. */
  const visitor = (
    options: { siteId?: string; origin?: string; userAgent?: string; from?: string } = {},
  ) =>
    request(service.server)
      .get(`/v1/${options.siteId ?? site.siteId}/visitor`)
      .set("Origin", options.origin ?? site.origin)
      .set("User-Agent", options.userAgent ?? FIREFOX)
      .set("X-Forwarded-For", options.from ?? ip);

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    openai = await startOpenAiStandin();
    service = await startTestService(database.url, {
      SITEVOICE_JOBS: "off",
      SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      TRUSTED_PROXIES: "loopback",
    });
  });
  beforeEach(async () => {
    site = await inlineSiteWithSession(service, {
      prefix: "visitor",
      domain: `visitor-${crypto.randomBytes(4).toString("hex")}.example`,
    });
    visitors += 1;
    ip = `198.51.100.${visitors}`;
    otherIp = `203.0.113.${visitors}`;
  });
  after(async () => {
    await service?.stop();
    await openai?.close();
    await database?.drop();
  });

  it("answers the fingerprint of the request's IP and User-Agent, uncached, to the site's origin", async () => {
    const res = await visitor().expect(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.meta.request_id).to.match(/^req_/);
    expect(Object.keys(res.body.data)).to.deep.equal(["user_fingerprint"]);
    const fingerprint = res.body.data.user_fingerprint as string;
    expect(fingerprint).to.match(/^[0-9a-f]{64}$/);
    expect(fingerprint).to.equal(await fingerprintOf({ ip, userAgent: FIREFOX }));
    expect(res.headers["cache-control"]).to.equal("no-store");
    expect(res.headers["access-control-allow-origin"]).to.equal(site.origin);
    expect(res.headers.vary).to.match(/\bOrigin\b/);
  });

  it("is stable across calls and the workspace's sites, and another browser or address is another visitor", async () => {
    const first = (await visitor().expect(200)).body.data.user_fingerprint;
    const again = (await visitor().expect(200)).body.data.user_fingerprint;
    expect(again).to.equal(first);
    const safari = (await visitor({ userAgent: SAFARI }).expect(200)).body.data.user_fingerprint;
    expect(safari).to.not.equal(first);
    expect(safari).to.equal(await fingerprintOf({ ip, userAgent: SAFARI }));
    const moved = (await visitor({ from: otherIp }).expect(200)).body.data.user_fingerprint;
    expect(moved).to.not.equal(first);
    expect(moved).to.equal(await fingerprintOf({ ip: otherIp, userAgent: FIREFOX }));
    // The fingerprint names a browser in a workspace, not a site: a data request names the site
    // beside it.
    const sibling = `visitor-${crypto.randomBytes(4).toString("hex")}`;
    await service.sites.create(operatorPrincipal(site.workspaceId, "test"), {
      site_id: sibling,
      business_name: sibling,
      business_description: "",
      domain: `${sibling}.example`,
    });
    const there = await visitor({ siteId: sibling, origin: `https://${sibling}.example` });
    expect(there.status).to.equal(200);
    expect(there.body.data.user_fingerprint).to.equal(first);
  });

  it("is another ID on a site of another workspace, for the same browser", async () => {
    const first = (await visitor().expect(200)).body.data.user_fingerprint;
    const other = await inlineSiteWithSession(service, {
      prefix: "visitor",
      domain: `visitor-${crypto.randomBytes(4).toString("hex")}.example`,
    });
    const there = await visitor({ siteId: other.siteId, origin: other.origin }).expect(200);
    expect(there.body.data.user_fingerprint).to.match(/^[0-9a-f]{64}$/);
    expect(there.body.data.user_fingerprint).to.not.equal(first);
  });

  it("is the fingerprint the token answers and stores its session under, for the same browser", async () => {
    const token = await request(service.server)
      .post(`/v1/${site.siteId}/token`)
      .set("Origin", site.origin)
      .set("User-Agent", FIREFOX)
      .set("X-Forwarded-For", ip)
      .send({ page_url: `${site.origin}/` })
      .expect(200);
    const shown = (await visitor().expect(200)).body.data.user_fingerprint;
    expect(token.body.data.user_fingerprint).to.equal(shown);
    const stored = await service.store.sessions.get(token.body.data.session_id);
    expect(stored?.user_fingerprint).to.equal(shown);
  });

  it("refuses a foreign or missing Origin with 403 origin_not_allowed, unreadable and without a fingerprint", async () => {
    const foreign = await visitor({ origin: "https://copycat.example" }).expect(403);
    expect(foreign.body.success).to.equal(false);
    expect(foreign.body.error.code).to.equal("origin_not_allowed");
    expect(foreign.body.data).to.equal(undefined);
    expect(foreign.headers["access-control-allow-origin"]).to.equal(undefined);
    expect(JSON.stringify(foreign.body)).to.not.match(/[0-9a-f]{64}/);
    const none = await request(service.server)
      .get(`/v1/${site.siteId}/visitor`)
      .set("X-Forwarded-For", ip)
      .expect(403);
    expect(none.body.error.code).to.equal("origin_not_allowed");
  });

  it("answers 404 site_not_found for an unknown site", async () => {
    const res = await visitor({ siteId: "no-such-site-here" }).expect(404);
    expect(res.body.error.code).to.equal("site_not_found");
  });

  it("answers the site's preflight with GET, and a stranger's with 403", async () => {
    const preflight = await request(service.server)
      .options(`/v1/${site.siteId}/visitor`)
      .set("Origin", site.origin)
      .set("Access-Control-Request-Method", "GET")
      .expect(204);
    expect(preflight.headers["access-control-allow-methods"]).to.equal("GET");
    expect(preflight.headers["access-control-allow-origin"]).to.equal(site.origin);
    const stranger = await request(service.server)
      .options(`/v1/${site.siteId}/visitor`)
      .set("Origin", "https://copycat.example")
      .set("Access-Control-Request-Method", "GET")
      .expect(403);
    expect(stranger.headers["access-control-allow-methods"]).to.equal(undefined);
  });

  it("answers an address's 31st call in a minute with 429 rate_limited, and other addresses still", async () => {
    const answers = await Promise.all(Array.from({ length: 31 }, () => visitor()));
    expect(statuses(answers)).to.deep.equal({ 200: 30, 429: 1 });
    const limited = answers.find((r) => r.status === 429)!;
    expect(limited.body.error.code).to.equal("rate_limited");
    expect(Number(limited.headers["retry-after"])).to.be.at.least(1);
    expect(limited.headers["ratelimit-limit"]).to.equal("30");
    // Per address, not per site: the next visitor is answered.
    await visitor({ from: otherIp }).expect(200);
  });
});
