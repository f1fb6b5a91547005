/**
 * The dashboard's pages over HTTP: each served with a Content-Security-Policy of the service's
 * own origin, no caching and no referrer; assets at versioned URLs, cached for a year only at
 * their current version; a visitor without a session sent to sign in; sign-up offered only when
 * open; templates escaping what they show.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { signUp } from "./helpers/session-cookie.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the dashboard's pages over HTTP", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_SIGNUP: "open" });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  for (const page of ["sign-in", "setup", "verify", "confirm", "accept"]) {
    it(`serves /dashboard/${page} with its security headers`, async () => {
      const res = await request(service.server).get(`/dashboard/${page}`).expect(200);
      expect(res.headers["content-type"]).to.match(/^text\/html/);
      expect(res.text).to.match(/^<!doctype html>/); // standards mode
      expect(res.headers["content-security-policy"]).to.contain("default-src 'self'");
      expect(res.headers["content-security-policy"]).to.contain("frame-ancestors 'none'");
      expect(res.headers["referrer-policy"]).to.equal("no-referrer");
      expect(res.headers["cache-control"]).to.equal("no-store");
      expect(res.text).to.not.match(/<script(?![^>]*\bsrc=)/); // no inline script
      expect(res.text).to.not.match(/(src|href)="https?:\/\//); // nothing from elsewhere
    });
  }

  it("sends a visitor without a session to sign in, with a cookie that is not one too", async () => {
    for (const cookie of [undefined, "sv_session=nope"]) {
      const call = request(service.server).get("/dashboard");
      if (cookie !== undefined) call.set("Cookie", cookie);
      const res = await call;
      expect(res.status).to.equal(303);
      expect(res.headers.location).to.equal("/dashboard/sign-in");
    }
  });

  it("shows a workspace's keys page to its members only", async () => {
    const noSession = await request(service.server).get("/dashboard/keys?workspace_id=ws_default");
    expect(noSession.status).to.equal(303);
    expect(noSession.headers.location).to.equal("/dashboard/sign-in");
    const { cookie, workspaceId } = await signUp(service);
    const mine = await request(service.server)
      .get(`/dashboard/keys?workspace_id=${workspaceId}`)
      .set("Cookie", cookie);
    expect(mine.status).to.equal(200);
    expect(mine.text).to.contain("Create the key");
    const theirs = await request(service.server)
      .get(`/dashboard/keys?workspace_id=${service.boot.workspaceId}`)
      .set("Cookie", cookie);
    expect(theirs.status).to.equal(303);
    expect(theirs.headers.location).to.equal("/dashboard");
  });

  it("offers sign-up when it is open", async () => {
    const res = await request(service.server).get("/dashboard/sign-in").expect(200);
    expect(res.text).to.contain('data-api="/v1/auth/signup"');
  });

  it("serves each asset at its versioned URL, cached a year only at its current version", async () => {
    const page = await request(service.server).get("/dashboard/sign-in");
    const url = /src="(\/dashboard\/static\/forms\.js\?v=[0-9a-f]{12})"/.exec(page.text)![1]!;
    const current = await request(service.server).get(url).expect(200);
    expect(current.headers["content-type"]).to.match(/^text\/javascript/);
    expect(current.headers["cache-control"]).to.equal("public, max-age=31536000, immutable");
    const stale = await request(service.server).get("/dashboard/static/forms.js?v=000000000000");
    expect(stale.headers["cache-control"]).to.equal("no-cache");
    const css = /href="(\/dashboard\/static\/dashboard\.css\?v=[0-9a-f]{12})"/.exec(page.text)![1]!;
    expect((await request(service.server).get(css)).headers["content-type"]).to.match(/^text\/css/);
    expect((await request(service.server).get("/dashboard/static/nothing.js")).status).to.equal(
      404,
    );
    expect(
      (await request(service.server).get("/dashboard/static/..%2fviews%2flayout.hbs")).status,
    ).to.equal(404);
  });

  it("escapes what a page shows of its user", async () => {
    const name = `<img src=x onerror=alert(1)>-${crypto.randomBytes(2).toString("hex")}`;
    const { cookie } = await signUp(service, name);
    const home = await request(service.server).get("/dashboard").set("Cookie", cookie).expect(200);
    expect(home.text).to.not.contain("<img src=x");
    expect(home.text).to.contain("&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;");
  });
});

describe("the dashboard's sign-in page when sign-up is by invitation", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url);
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("offers no sign-up", async () => {
    const res = await request(service.server).get("/dashboard/sign-in").expect(200);
    expect(res.text).to.not.contain("/v1/auth/signup");
  });
});
