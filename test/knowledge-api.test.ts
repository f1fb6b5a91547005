/**
 * The site knowledge endpoints over HTTP, on a site whose crawl found nothing: the agent's signed
 * `POST /v1/:siteId/knowledge` (Origin and signature as `query`, the debug key with `query:test`,
 * its own limit of 300 a minute, a `function_call` usage event named `search_site` for each call)
 * and the business's `GET /v1/sites/:id/knowledge` and `/knowledge/stats` (`sites:read`): an
 * empty list and zero counts, never an error, and every bad input refused with the right error.
 * What a crawled site answers is in knowledge-search.test.ts.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request, { type Response } from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { newSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

const statuses = (responses: Response[]) =>
  responses.reduce<Record<number, number>>((count, r) => {
    count[r.status] = (count[r.status] ?? 0) + 1;
    return count;
  }, {});

describe("site knowledge endpoints on a site without knowledge", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let service: TestService;
  let workspaceId: string;
  let session: WidgetSession;
  /** A site of another workspace. */
  let foreignSiteId: string;
  let readKey: string;

  /** A new site (no crawl runs: jobs are off) in `workspace`, with a session on it. */
  async function siteWithSession(workspace = workspaceId): Promise<WidgetSession> {
    const siteId = `knowledge-${crypto.randomBytes(4).toString("hex")}`;
    const domain = `${siteId}.example`;
    await service.sites.create(operatorPrincipal(workspace, "test"), {
      site_id: siteId,
      business_name: "Harbour Dental",
      business_description: "A dental practice",
      domain,
    });
    return newSession(service, { siteId, workspaceId: workspace, origin: `https://${domain}` });
  }

  const search = (body: unknown, as = session) => signedPost(service, as, "/knowledge", body);
  const read = (path: string, key = readKey) =>
    request(service.server).get(path).set("Authorization", `Bearer ${key}`);

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
    workspaceId = await service.workspace();
    session = await siteWithSession();
    foreignSiteId = (await siteWithSession(await service.workspace())).siteId;
    readKey = await service.key(workspaceId, { scopes: ["sites:read"] });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  describe("POST /v1/:siteId/knowledge", () => {
    it("answers an empty list for a site whose crawl found nothing", async () => {
      const res = await search({ query: "are you open on sundays", limit: 3 });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data).to.deep.equal({ items: [] });
      expect(res.headers["access-control-allow-origin"]).to.equal(session.origin);
    });

    it("takes a query of 500 characters", async () => {
      const res = await search({ query: "a".repeat(500) });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });

    const refused: [string, unknown, string][] = [
      ["an empty query", { query: "" }, "query"],
      ["a query of spaces only", { query: "   " }, "query"],
      ["a query of 2,000 characters", { query: "a".repeat(2000) }, "query"],
      ["a query of 501 characters", { query: "a".repeat(501) }, "query"],
      ["no query", { limit: 3 }, "query"],
      ["a query that is not text", { query: 42 }, "query"],
      ["limit 0", { query: "hours", limit: 0 }, "limit"],
      ["limit 6", { query: "hours", limit: 6 }, "limit"],
      ["limit 2.5", { query: "hours", limit: 2.5 }, "limit"],
      ['limit "3"', { query: "hours", limit: "3" }, "limit"],
      ["an unknown field", { query: "hours", collection: "pages" }, "collection"],
      ["a body that is not an object", ["hours"], ""],
    ];
    for (const [what, body, field] of refused) {
      it(`refuses ${what} with 400 invalid_request naming ${field || "the body"}`, async () => {
        const res = await search(body);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
        expect(res.body.error.details.field ?? "").to.equal(field);
      });
    }

    it("refuses a wrong signature with 401 invalid_signature", async () => {
      const res = await search({ query: "hours" }, { ...session, signing_secret: "0".repeat(64) });
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal("invalid_signature");
    });

    it("refuses an unsigned call with 401 invalid_signature", async () => {
      const res = await request(service.server)
        .post(`/v1/${session.siteId}/knowledge`)
        .set("Origin", session.origin)
        .set("Content-Type", "application/json")
        .send(JSON.stringify({ query: "hours" }));
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal("invalid_signature");
    });

    it("refuses a call signed by another site's session with 401", async () => {
      const other = await siteWithSession();
      const res = await search(
        { query: "hours" },
        { ...other, siteId: session.siteId, origin: session.origin },
      );
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal("invalid_signature");
    });

    it("refuses another origin with 403 origin_not_allowed", async () => {
      const res = await search({ query: "hours" }, { ...session, origin: "https://evil.example" });
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal("origin_not_allowed");
    });

    it("answers 404 site_not_found for an unknown site", async () => {
      const res = await search({ query: "hours" }, { ...session, siteId: "no-such-site" });
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal("site_not_found");
    });

    it("answers the CORS preflight of the site's origin", async () => {
      const res = await request(service.server)
        .options(`/v1/${session.siteId}/knowledge`)
        .set("Origin", session.origin)
        .set("Access-Control-Request-Method", "POST");
      expect(res.status).to.equal(204);
      expect(res.headers["access-control-allow-origin"]).to.equal(session.origin);
      expect(res.headers["access-control-allow-methods"]).to.equal("POST");
    });

    it("records each call as a function_call usage event named search_site", async () => {
      const own = await siteWithSession();
      await search({ query: "parking" }, own);
      await search({ query: "parking" }, own);
      await service.events.flush();
      const stored = await service.store.events.listUsage(own.siteId);
      expect(stored.map((e) => [e.type, e.function_name, e.session_id])).to.deep.equal([
        ["function_call", "search_site", own.session_id],
        ["function_call", "search_site", own.session_id],
      ]);
      expect(JSON.parse(stored[0]!.metadata!)).to.deep.equal({
        session_id: own.session_id,
        returned: 0,
      });
    });

    it("records no usage event for a refused call", async () => {
      const own = await siteWithSession();
      await search({ query: "" }, own);
      await service.events.flush();
      expect(await service.store.events.listUsage(own.siteId)).to.deep.equal([]);
    });

    it("answers the 301st call of a minute with 429, leaving the site's queries their own limit", async () => {
      const own = await siteWithSession();
      const answers = await Promise.all(
        Array.from({ length: 301 }, () => search({ query: "hours" }, own)),
      );
      expect(statuses(answers)).to.deep.equal({ 200: 300, 429: 1 });
      const limited = answers.find((r) => r.status === 429)!;
      expect(limited.body.error.code).to.equal("rate_limited");
      expect(limited.headers["ratelimit-limit"]).to.equal("300");
      expect(Number(limited.headers["retry-after"])).to.be.at.least(1);
      expect(limited.headers["access-control-allow-origin"]).to.equal(own.origin);
      // The query endpoint's bucket is untouched: it refuses for another reason (no adapter).
      const query = await signedPost(service, own, "/query", { collection: "items" });
      expect(query.body.error.code).to.not.equal("rate_limited");
    });

    describe("with an API key holding query:test instead of a signature", () => {
      const withKey = (siteId: string, key: string, body: unknown) =>
        request(service.server)
          .post(`/v1/${siteId}/knowledge`)
          .set("Authorization", `Bearer ${key}`)
          .send(body as object);

      it("answers the search", async () => {
        const key = await service.key(workspaceId, { scopes: ["query:test"] });
        const res = await withKey(session.siteId, key, { query: "hours" });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body.data).to.deep.equal({ items: [] });
      });

      it("refuses a key without query:test with 403", async () => {
        const key = await service.key(workspaceId, { scopes: ["sites:read"] });
        const res = await withKey(session.siteId, key, { query: "hours" });
        expect(res.status).to.equal(403);
        expect(res.body.error.details.required_scope).to.equal("query:test");
      });

      it("refuses a key limited to another site with 403", async () => {
        const other = await siteWithSession();
        const key = await service.key(workspaceId, {
          scopes: ["query:test"],
          siteIds: [other.siteId],
        });
        const res = await withKey(session.siteId, key, { query: "hours" });
        expect(res.status).to.equal(403);
        expect(res.body.error.code).to.equal("forbidden");
      });

      it("answers 404 site_not_found for another workspace's site", async () => {
        const key = await service.key(workspaceId, { scopes: ["query:test"] });
        const res = await withKey(foreignSiteId, key, { query: "hours" });
        expect(res.status).to.equal(404);
        expect(res.body.error.code).to.equal("site_not_found");
      });

      it("refuses a 2,000-character query with 400", async () => {
        const key = await service.key(workspaceId, { scopes: ["query:test"] });
        const res = await withKey(session.siteId, key, { query: "a".repeat(2000) });
        expect(res.status).to.equal(400);
        expect(res.body.error.details.field).to.equal("query");
      });
    });
  });

  describe("GET /v1/sites/:id/knowledge", () => {
    it("answers an empty list with the search's time for a site whose crawl found nothing", async () => {
      const res = await read(`/v1/sites/${session.siteId}/knowledge?q=opening%20hours&limit=5`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data).to.deep.equal([]);
      expect(res.body.meta.took_ms).to.be.a("number").and.at.least(0);
    });

    const refused: [string, string, string][] = [
      ["no q", "", "q"],
      ["an empty q", "q=", "q"],
      ["a q of spaces only", "q=%20%20", "q"],
      ["a q of 2,000 characters", `q=${"a".repeat(2000)}`, "q"],
      ["a q of 501 characters", `q=${"a".repeat(501)}`, "q"],
      ["limit 0", "q=hours&limit=0", "limit"],
      ["limit 6", "q=hours&limit=6", "limit"],
      ["limit 2.5", "q=hours&limit=2.5", "limit"],
      ["limit abc", "q=hours&limit=abc", "limit"],
      ["q given twice", "q=hours&q=prices", "q"],
      ["an unknown parameter", "q=hours&collection=x", "collection"],
    ];
    for (const [what, query, field] of refused) {
      it(`refuses ${what} with 400 invalid_request naming ${field}`, async () => {
        const res = await read(`/v1/sites/${session.siteId}/knowledge?${query}`);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
        expect(res.body.error.details.field).to.equal(field);
      });
    }

    it("refuses a call without a key with 401", async () => {
      const res = await request(service.server).get(
        `/v1/sites/${session.siteId}/knowledge?q=hours`,
      );
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal("unauthorized");
    });

    it("refuses a key without sites:read with 403", async () => {
      const key = await service.key(workspaceId, { scopes: ["query:test"] });
      const res = await read(`/v1/sites/${session.siteId}/knowledge?q=hours`, key);
      expect(res.status).to.equal(403);
      expect(res.body.error.details.required_scope).to.equal("sites:read");
    });

    it("refuses a key limited to another site with 403", async () => {
      const other = await siteWithSession();
      const key = await service.key(workspaceId, {
        scopes: ["sites:read"],
        siteIds: [other.siteId],
      });
      const res = await read(`/v1/sites/${session.siteId}/knowledge?q=hours`, key);
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal("forbidden");
    });

    it("answers 404 not_found for an unknown site", async () => {
      const res = await read(`/v1/sites/no-such-site/knowledge?q=hours`);
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal("not_found");
    });

    it("answers 404 not_found for another workspace's site, as for an unknown one", async () => {
      const res = await read(`/v1/sites/${foreignSiteId}/knowledge?q=hours`);
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal("not_found");
    });
  });

  describe("GET /v1/sites/:id/knowledge/stats", () => {
    it("answers zero counts for a site whose crawl found nothing", async () => {
      const res = await read(`/v1/sites/${session.siteId}/knowledge/stats`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data).to.include({ pages: 0, sections: 0, passages: 0, indexed_at: null });
      expect(res.body.data.languages).to.be.an("array");
    });

    it("refuses a query parameter with 400", async () => {
      const res = await read(`/v1/sites/${session.siteId}/knowledge/stats?q=hours`);
      expect(res.status).to.equal(400);
      expect(res.body.error.details.field).to.equal("q");
    });

    it("refuses a key without sites:read with 403", async () => {
      const key = await service.key(workspaceId, { scopes: ["query:test"] });
      const res = await read(`/v1/sites/${session.siteId}/knowledge/stats`, key);
      expect(res.status).to.equal(403);
    });

    it("refuses a key limited to another site with 403", async () => {
      const other = await siteWithSession();
      const key = await service.key(workspaceId, {
        scopes: ["sites:read"],
        siteIds: [other.siteId],
      });
      const res = await read(`/v1/sites/${session.siteId}/knowledge/stats`, key);
      expect(res.status).to.equal(403);
    });

    it("answers 404 for another workspace's site", async () => {
      const res = await read(`/v1/sites/${foreignSiteId}/knowledge/stats`);
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal("not_found");
    });
  });
});
