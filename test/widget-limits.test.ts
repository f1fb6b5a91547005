/**
 * The widget endpoints' rate limits (the API reference, "Limits"): queries 300 per minute per site with a
 * burst of 30 per second, events 600 per minute per site, and two instances on one Redis
 * admitting no more than one instance would. Signatures by Web Crypto, as the widget makes them.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import type { Response } from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { redisAvailable, TEST_REDIS_URL } from "./helpers/test-redis.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { inlineSiteWithSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** A site and a session on it, with ids unique to this run: each test's limits are its own. */
const siteWithSession = (service: TestService) =>
  inlineSiteWithSession(service, { prefix: "limits", domain: "limits.example" });

const statuses = (responses: Response[]) =>
  responses.reduce<Record<number, number>>((count, r) => {
    count[r.status] = (count[r.status] ?? 0) + 1;
    return count;
  }, {});

const query = { collection: "items" };
const event = { type: "function_call", function_name: "search_database" };

describe("widget rate limits on one instance", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let service: TestService;
  let session: WidgetSession;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url, {
      SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
    });
  });
  beforeEach(async () => {
    session = await siteWithSession(service);
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("answers the 31st query in a second with 429, Retry-After and RateLimit headers", async () => {
    const answers = await Promise.all(
      Array.from({ length: 31 }, () => signedPost(service, session, "/query", query)),
    );
    expect(statuses(answers)).to.deep.equal({ 200: 30, 429: 1 });
    const limited = answers.find((r) => r.status === 429)!;
    expect(limited.body.error.code).to.equal("rate_limited");
    expect(Number(limited.headers["retry-after"])).to.be.at.least(1);
    expect(limited.headers["ratelimit-limit"]).to.equal("30");
    // The widget is on another origin: CORS must let it read when to retry.
    expect(limited.headers["access-control-allow-origin"]).to.equal(session.origin);
    const exposed = (limited.headers["access-control-expose-headers"] ?? "").split(/,\s*/);
    expect(exposed).to.include.members(["Retry-After", "RateLimit-Limit", "RateLimit-Reset"]);
  });

  it("answers the 301st query in a minute with 429", async () => {
    let accepted = 0;
    // Ten bursts of 30, each in a second window of its own, then one more.
    while (accepted < 300) {
      const burst = await Promise.all(
        Array.from({ length: 30 }, () => signedPost(service, session, "/query", query)),
      );
      const counts = statuses(burst);
      accepted += counts[200] ?? 0;
      // The per-second window must pass before the next burst: its Retry-After says when.
      const wait = burst.find((r) => r.status === 429)?.headers["retry-after"];
      await new Promise((resolve) => setTimeout(resolve, wait ? Number(wait) * 1000 : 1050));
    }
    expect(accepted).to.equal(300);
    const over = await signedPost(service, session, "/query", query);
    expect(over.status).to.equal(429);
    expect(over.headers["ratelimit-limit"]).to.equal("300");
  });

  it("answers the 601st event in a minute with 429", async () => {
    const answers = await Promise.all(
      Array.from({ length: 601 }, () => signedPost(service, session, "/analytics/event", event)),
    );
    expect(statuses(answers)).to.deep.equal({ 202: 600, 429: 1 });
  });

  it("answers a site's 601st call report in a minute with 429, storing 600 calls", async () => {
    const answers = await Promise.all(
      Array.from({ length: 601 }, (_, i) =>
        signedPost(service, session, "/session/call", { call_id: `rtc_limit_${i}` }),
      ),
    );
    expect(statuses(answers)).to.deep.equal({ 202: 600, 429: 1 });
    expect(await service.store.voiceCalls.ofSession(session.session_id)).to.have.length(600);
  });
});

describe("widget rate limits across two instances on one Redis", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let a: TestService;
  let b: TestService;
  let session: WidgetSession;

  before(async function () {
    if (!(await redisAvailable())) missing(this, "Redis");
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    const env = {
      SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      REDIS_URL: TEST_REDIS_URL,
      SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
    };
    a = await startTestService(database.url, env);
    b = await startTestService(database.url, env);
  });
  beforeEach(async () => {
    session = await siteWithSession(a);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  it("admits 30 queries a second between them, not each", async () => {
    const queries = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signedPost(i % 2 ? a : b, session, "/query", query)),
    );
    expect(statuses(queries)).to.deep.equal({ 200: 30, 429: 10 });
  });

  it("admits 600 events a minute between them, not each", async () => {
    const events = await Promise.all(
      Array.from({ length: 650 }, (_, i) =>
        signedPost(i % 2 ? a : b, session, "/analytics/event", event),
      ),
    );
    expect(statuses(events)).to.deep.equal({ 202: 600, 429: 50 });
  });
});
