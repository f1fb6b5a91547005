/**
 * The user-data endpoints' rules, on a service whose jobs are off (so requests stay pending):
 * 401 without a key, 403 for a key without sites:write or limited to another site, 404 for
 * another workspace's site or request, 400 for each bad input with nothing stored; the same
 * request while one is open answers that one; listing with filters and a cursor; the request
 * limit; and a request run by the service's job once made (jobs on).
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const fp = () => crypto.randomBytes(32).toString("hex");

async function site(service: TestService, workspaceId: string, prefix: string): Promise<string> {
  const siteId = `${prefix}-${crypto.randomBytes(3).toString("hex")}`;
  await service.sites.create(operatorPrincipal(workspaceId, "test"), {
    site_id: siteId,
    business_name: prefix,
    business_description: "",
    domain: `${siteId}.example`,
  });
  return siteId;
}

describe("user-data API: access and input", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;
  let ws: string;
  let siteA: string;
  let siteB: string;
  let foreignSite: string;
  let full: { Authorization: string };
  let count = async () => 0;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
    ws = await service.workspace();
    siteA = await site(service, ws, "rights-a");
    siteB = await site(service, ws, "rights-b");
    foreignSite = await site(service, await service.workspace(), "foreign");
    full = { Authorization: `Bearer ${await service.key(ws)}` };
    count = async () =>
      Number(
        (
          (await service.store.db.knex("user_data_requests").count({ n: "*" })) as { n: number }[]
        )[0]!.n,
      );
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  const post = (kind: string, body: unknown, headers: Record<string, string> = full) =>
    request(service.server)
      .post(`/v1/user-data/${kind}`)
      .set(headers)
      .send(body as object);

  describe("who may ask", () => {
    const endpoints = (siteId: string) =>
      [
        ["POST export", () => post("export", { site_id: siteId, user_fingerprint: fp() }, {})],
        ["POST delete", () => post("delete", { site_id: siteId, user_fingerprint: fp() }, {})],
        ["GET requests", () => request(service.server).get("/v1/user-data/requests")],
        ["GET a request", () => request(service.server).get("/v1/user-data/requests/udr_x")],
        [
          "GET lookup",
          () => request(service.server).get(`/v1/user-data/lookup?site_id=${siteId}&email=a@b.co`),
        ],
      ] as const;

    it("401 unauthorized without a key, or with one that is not a key", async () => {
      for (const [what, call] of endpoints(siteA)) {
        const res = await call();
        expect(res.status, what).to.equal(401);
        expect(res.body.error.code, what).to.equal("unauthorized");
      }
      const bad = await post(
        "export",
        { site_id: siteA, user_fingerprint: fp() },
        { Authorization: "Bearer vk_test_notakey" },
      );
      expect(bad.status).to.equal(401);
    });

    it("403 forbidden for a key without sites:write, naming the scope", async () => {
      const reader = {
        Authorization: `Bearer ${await service.key(ws, { scopes: ["sites:read"] })}`,
      };
      const before = await count();
      for (const kind of ["export", "delete"]) {
        const res = await post(kind, { site_id: siteA, user_fingerprint: fp() }, reader);
        expect(res.status).to.equal(403);
        expect(res.body.error.details).to.deep.equal({ required_scope: "sites:write" });
      }
      const list = await request(service.server).get("/v1/user-data/requests").set(reader);
      expect(list.status).to.equal(403);
      const lookup = await request(service.server)
        .get(`/v1/user-data/lookup?site_id=${siteA}&email=a@b.co`)
        .set(reader);
      expect(lookup.status).to.equal(403);
      expect(await count()).to.equal(before);
    });

    it("403 forbidden for a per-site key on another site of its workspace", async () => {
      const onlyA = {
        Authorization: `Bearer ${await service.key(ws, { scopes: ["sites:write"], siteIds: [siteA] })}`,
      };
      const before = await count();
      const res = await post("delete", { site_id: siteB, user_fingerprint: fp() }, onlyA);
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal("forbidden");
      const lookup = await request(service.server)
        .get(`/v1/user-data/lookup?site_id=${siteB}&email=a@b.co`)
        .set(onlyA);
      expect(lookup.status).to.equal(403);
      expect(await count()).to.equal(before);
      // Its own site is fine, and it sees only its own site's requests.
      const own = await post("export", { site_id: siteA, user_fingerprint: fp() }, onlyA);
      expect(own.status).to.equal(202);
      const onB = await post("export", { site_id: siteB, user_fingerprint: fp() });
      const seen = await request(service.server)
        .get("/v1/user-data/requests")
        .set(onlyA)
        .expect(200);
      expect(seen.body.data.map((r: { site_id: string }) => r.site_id)).to.not.include(siteB);
      const hidden = await request(service.server)
        .get(`/v1/user-data/requests/${onB.body.data.request_id}`)
        .set(onlyA);
      expect(hidden.status).to.equal(404);
    });

    it("404 not_found for another workspace's site or request", async () => {
      const before = await count();
      const res = await post("export", { site_id: foreignSite, user_fingerprint: fp() });
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal("not_found");
      const lookup = await request(service.server)
        .get(`/v1/user-data/lookup?site_id=${foreignSite}&email=a@b.co`)
        .set(full);
      expect(lookup.status).to.equal(404);
      const unknown = await post("export", { site_id: "no-such-site", user_fingerprint: fp() });
      expect(unknown.status).to.equal(404);
      expect(await count()).to.equal(before);
      const other = { Authorization: `Bearer ${await service.key(await service.workspace())}` };
      const mine = await post("export", { site_id: siteA, user_fingerprint: fp() });
      const theirs = await request(service.server)
        .get(`/v1/user-data/requests/${mine.body.data.request_id}`)
        .set(other);
      expect(theirs.status).to.equal(404);
    });
  });

  describe("a request", () => {
    it("202 pending with its id and a due date; the same request while open answers the first", async () => {
      const subject = { site_id: siteA, user_fingerprint: fp() };
      const first = await post("delete", subject).expect(202);
      expect(first.body.data).to.include({ status: "pending", type: "delete", site_id: siteA });
      expect(first.body.data.request_id).to.match(/^udr_[0-9a-z]{26}$/);
      const due = Date.parse(first.body.data.due_by) - Date.parse(first.body.data.created_at);
      expect(due).to.equal(72 * 3600_000);
      const again = await post("delete", subject).expect(202);
      expect(again.body.data.request_id).to.equal(first.body.data.request_id);
      const racing = await Promise.all([1, 2, 3].map(() => post("export", subject)));
      const ids = new Set(racing.map((res) => res.body.data.request_id as string));
      expect(ids.size).to.equal(1);
      expect(ids.has(first.body.data.request_id)).to.equal(false);
      const exportDue = racing[0]!.body.data;
      expect(Date.parse(exportDue.due_by) - Date.parse(exportDue.created_at)).to.equal(
        30 * 24 * 3600_000,
      );
      expect(exportDue.download_url).to.equal(null);
    });

    const bad: [string, unknown][] = [
      ["no body", undefined],
      ["an array", [1]],
      ["no site_id", { user_fingerprint: fp() }],
      ["no user_fingerprint", { site_id: "x-site" }],
      ["a fingerprint too short", { site_id: "x-site", user_fingerprint: "abc" }],
      ["a fingerprint in upper case", { site_id: "x-site", user_fingerprint: fp().toUpperCase() }],
      ["a fingerprint of 65 characters", { site_id: "x-site", user_fingerprint: `${fp()}0` }],
      ["a number for site_id", { site_id: 7, user_fingerprint: fp() }],
      ["an unknown field", { site_id: "x-site", user_fingerprint: fp(), email: "a@b.co" }],
    ];
    for (const [what, body] of bad) {
      it(`400 invalid_request for ${what}, storing nothing`, async () => {
        const before = await count();
        const res = await post("export", body);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
        expect(await count()).to.equal(before);
      });
    }

    it("400 for malformed JSON and for a query parameter", async () => {
      const malformed = await request(service.server)
        .post("/v1/user-data/delete")
        .set(full)
        .set("Content-Type", "application/json")
        .send("{not json");
      expect(malformed.status).to.equal(400);
      const query = await request(service.server)
        .post("/v1/user-data/delete?site_id=x")
        .set(full)
        .send({ site_id: siteA, user_fingerprint: fp() });
      expect(query.status).to.equal(400);
      expect(query.body.error.details).to.deep.equal({ field: "site_id" });
    });

    it("404 for an unknown request id, 405 for a method the path does not take", async () => {
      const res = await request(service.server).get("/v1/user-data/requests/udr_nothing").set(full);
      expect(res.status).to.equal(404);
      const method = await request(service.server).delete("/v1/user-data/requests").set(full);
      expect(method.status).to.equal(405);
      expect(method.headers.allow).to.contain("GET");
    });
  });

  describe("the list", () => {
    let made: string[];
    let siteC: string;

    before(async () => {
      siteC = await site(service, ws, "rights-c");
      made = [];
      for (let n = 0; n < 5; n++) {
        const res = await post(n % 2 === 0 ? "export" : "delete", {
          site_id: siteC,
          user_fingerprint: fp(),
        }).expect(202);
        made.push(res.body.data.request_id as string);
      }
    });

    it("pages newest first with a cursor, each request once", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await request(service.server)
          .get("/v1/user-data/requests")
          .query({ site_id: siteC, limit: 2, ...(cursor === null ? {} : { cursor }) })
          .set(full)
          .expect(200);
        expect(res.body.data.length).to.be.at.most(2);
        seen.push(...res.body.data.map((r: { request_id: string }) => r.request_id));
        cursor = res.body.meta.next_cursor as string | null;
      } while (cursor !== null);
      expect(seen).to.deep.equal([...made].reverse());
    });

    it("filters by type and status", async () => {
      const exports = await request(service.server)
        .get("/v1/user-data/requests")
        .query({ site_id: siteC, type: "export", status: "pending" })
        .set(full)
        .expect(200);
      expect(exports.body.data.map((r: { request_id: string }) => r.request_id)).to.deep.equal([
        made[4],
        made[2],
        made[0],
      ]);
      const done = await request(service.server)
        .get("/v1/user-data/requests")
        .query({ site_id: siteC, status: "done" })
        .set(full)
        .expect(200);
      expect(done.body.data).to.deep.equal([]);
    });

    for (const [what, query] of [
      ["an unknown type", { type: "erase" }],
      ["an unknown status", { status: "stuck" }],
      ["a limit over 200", { limit: "201" }],
      ["a cursor the service did not issue", { cursor: "bm9wZQ" }],
      ["an unknown parameter", { sort: "asc" }],
    ] as const) {
      it(`400 for ${what}`, async () => {
        const res = await request(service.server)
          .get("/v1/user-data/requests")
          .query(query)
          .set(full);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
      });
    }

    it("404 for another workspace's site as a filter", async () => {
      const res = await request(service.server)
        .get("/v1/user-data/requests")
        .query({ site_id: foreignSite })
        .set(full);
      expect(res.status).to.equal(404);
    });
  });

  describe("the lookup", () => {
    for (const [what, query] of [
      ["no site_id", { email: "a@b.co" }],
      ["neither email nor phone", { site_id: "x-site" }],
      ["both email and phone", { site_id: "x-site", email: "a@b.co", phone: "5550102030" }],
      ["an email that is not one", { site_id: "x-site", email: "nobody" }],
      ["a phone of 6 digits", { site_id: "x-site", phone: "12-34-56" }],
      ["a phone over 50 characters", { site_id: "x-site", phone: "1".repeat(51) }],
    ] as const) {
      it(`400 for ${what}`, async () => {
        const res = await request(service.server)
          .get("/v1/user-data/lookup")
          .query(query)
          .set(full);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
      });
    }
  });

  describe("the download link", () => {
    it("403 for an unknown request without or with a made-up signature, before anything else", async () => {
      const none = await request(service.server).get("/v1/user-data/exports/udr_x/download");
      expect(none.status).to.equal(403);
      const made = await request(service.server).get(
        `/v1/user-data/exports/udr_x/download?expires=9999999999&signature=${"0".repeat(64)}`,
      );
      expect(made.status).to.equal(403);
      expect(made.body.error.code).to.equal("forbidden");
    });
  });

  describe("the request limit", () => {
    it("429 rate_limited after 100 requests in an hour from one workspace, storing nothing more", async () => {
      const busy = await service.workspace();
      const busySite = await site(service, busy, "busy");
      const key = { Authorization: `Bearer ${await service.key(busy)}` };
      for (let n = 0; n < 100; n++) {
        await post("export", { site_id: busySite, user_fingerprint: fp() }, key).expect(202);
      }
      const before = await count();
      const over = await post("delete", { site_id: busySite, user_fingerprint: fp() }, key);
      expect(over.status).to.equal(429);
      expect(over.body.error.code).to.equal("rate_limited");
      expect(Number(over.headers["retry-after"])).to.be.greaterThan(0);
      expect(await count()).to.equal(before);
      // Another workspace is not held back.
      await post("export", { site_id: siteA, user_fingerprint: fp() }).expect(202);
    });
  });
});

describe("user-data requests with jobs on", function () {
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

  it("runs a request as soon as it is made: an export of a visitor with no data is empty", async () => {
    const ws = await service.workspace();
    const siteId = await site(service, ws, "prompt");
    const auth = { Authorization: `Bearer ${await service.key(ws)}` };
    const made = await request(service.server)
      .post("/v1/user-data/export")
      .set(auth)
      .send({ site_id: siteId, user_fingerprint: fp() })
      .expect(202);
    const id = made.body.data.request_id as string;
    let answer: Record<string, unknown> = {};
    for (let tries = 0; tries < 100 && answer.status !== "done"; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = (await request(service.server).get(`/v1/user-data/requests/${id}`).set(auth)).body
        .data as Record<string, unknown>;
    }
    expect(answer).to.include({ status: "done", attempts: 1 });
    expect(answer.result).to.include({ sessions: 0, transcripts: 0, usage_events: 0, leads: 0 });
    const link = new URL(answer.download_url as string);
    const doc = await request(service.server)
      .get(link.pathname + link.search)
      .expect(200);
    expect(JSON.parse(doc.text)).to.include({ site_id: siteId });
  });
});
