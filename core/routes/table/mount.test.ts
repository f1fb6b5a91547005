/**
 * The route table runs every route through the same phases in one order, and a phase that
 * refuses stops the request there: an Origin refused never reaches the signature, a signature
 * refused never counts against a limit, a bad body never reaches the scope check or the handler.
 */
import { expect } from "chai";
import express from "express";
import pino from "pino";
import request from "supertest";
import type { Principal } from "../../auth/principal.ts";
import { errors } from "../../errors.ts";
import { errorHandler } from "../../http/error-handler.ts";
import { requestContext } from "../../http/request-context.ts";
import { rateLimiterFactory } from "../../limits/rate-limiter.ts";
import type { PublicSite } from "../../sites/site-types.ts";
import type { SessionRow } from "../../store/repos/sessions-repo.ts";
import { mountRoutes } from "./mount.ts";
import { PHASES, type Phase } from "./phases.ts";
import type { Route } from "./route.ts";

const SITE = { site: { site_id: "shop", domain: "shop.example" } } as unknown as PublicSite;
const ORIGIN = "https://shop.example";
const KEY: Principal = {
  kind: "api_key",
  workspaceId: "ws_1",
  keyId: "key_1",
  scopes: new Set(["query:test"]),
  mode: "live",
};

function appOf(routes: Route[], trace: [string, Phase][]) {
  const parts = {
    sites: {
      publicSite: async (id: string) => (id === "shop" ? SITE : undefined),
      assertOwned: async (_principal: Principal, id: string) => {
        if (id !== "shop") throw errors.notFound("site", id);
      },
    },
    sessions: {
      verify: async (_site: string, session: unknown) => {
        if (session !== "sess_1") throw errors.invalidSignature();
        return { id: "sess_1" } as SessionRow;
      },
    },
    keys: {
      authenticate: async (header: string | undefined) => {
        if (header !== "Bearer good") throw errors.unauthorized();
        return KEY;
      },
    },
    limiters: rateLimiterFactory(),
  };
  const app = express();
  app.use(requestContext);
  app.use(mountRoutes(routes, parts, { trace: (id, phase) => trace.push([id, phase]) }));
  app.use(errorHandler(pino({ level: "silent" })));
  return app;
}

const route = (fields: Partial<Route>): Route => ({
  id: "search",
  method: "post",
  path: "/v1/:siteId/search",
  summary: "A search",
  tags: ["test"],
  access: ["signed", "key:query:test"],
  limits: [{ spec: { name: `t-${Math.random()}`, points: 1, durationSeconds: 60 }, by: "site" }],
  body: "knowledge-search",
  response: { status: 200, description: "ok", schema: {} },
  errors: [],
  handle: async (call) => ({ data: { got: call.body } }),
  ...fields,
});

describe("the route table's phases", () => {
  it("runs a signed call through every phase, in the table's order", async () => {
    const trace: [string, Phase][] = [];
    await request(appOf([route({})], trace))
      .post("/v1/shop/search")
      .set("Origin", ORIGIN)
      .set("X-Service-Session", "sess_1")
      .set("Content-Type", "application/json")
      .send('{"query":"gnocchi"}')
      .expect(200);
    expect(trace.map(([, phase]) => phase)).to.deep.equal([...PHASES]);
  });

  it("stops at the origin phase for another origin: 403 origin_not_allowed", async () => {
    const trace: [string, Phase][] = [];
    const res = await request(appOf([route({})], trace))
      .post("/v1/shop/search")
      .set("Origin", "https://evil.example")
      .set("X-Service-Session", "sess_1")
      .send({ query: "gnocchi" })
      .expect(403);
    expect(res.body.error.code).to.equal("origin_not_allowed");
    expect(trace.map(([, phase]) => phase)).to.deep.equal(["origin"]);
  });

  it("stops at the credential phase for a bad signature, before any limit counts it", async () => {
    const trace: [string, Phase][] = [];
    const app = appOf([route({})], trace);
    for (let i = 0; i < 2; i++) {
      const res = await request(app)
        .post("/v1/shop/search")
        .set("Origin", ORIGIN)
        .set("X-Service-Session", "sess_forged")
        .send({ query: "gnocchi" });
      expect(res.body.error.code).to.equal("invalid_signature");
    }
    expect(trace.map(([, phase]) => phase)).to.deep.equal([
      "origin",
      "credential",
      "origin",
      "credential",
    ]);
    // The site's one request a minute is still there for a genuine call.
    await request(app)
      .post("/v1/shop/search")
      .set("Origin", ORIGIN)
      .set("X-Service-Session", "sess_1")
      .send({ query: "gnocchi" })
      .expect(200);
  });

  it("stops at the limits phase once the site's limit is spent: 429 before the body is read", async () => {
    const trace: [string, Phase][] = [];
    const app = appOf([route({})], trace);
    const call = () =>
      request(app)
        .post("/v1/shop/search")
        .set("Origin", ORIGIN)
        .set("X-Service-Session", "sess_1")
        .set("Content-Type", "application/json")
        .send("{not json");
    expect((await call()).status).to.equal(400);
    trace.length = 0;
    const res = await call();
    expect(res.body.error.code).to.equal("rate_limited");
    expect(trace.map(([, phase]) => phase)).to.deep.equal(["origin", "credential", "limits"]);
  });

  it("checks a key's scope only after its body is valid, and never reaches the handler without it", async () => {
    const trace: [string, Phase][] = [];
    const handled: unknown[] = [];
    const app = appOf(
      [
        route({
          access: ["key:sites:read"],
          handle: async (call) => {
            handled.push(call.body);
            return { data: {} };
          },
        }),
      ],
      trace,
    );
    const res = await request(app)
      .post("/v1/shop/search")
      .set("Authorization", "Bearer good")
      .send({ query: "gnocchi" })
      .expect(403);
    expect(res.body.error.code).to.equal("forbidden");
    expect(trace.map(([, phase]) => phase)).to.deep.equal([
      "origin",
      "credential",
      "limits",
      "parse",
      "authorize",
    ]);
    expect(handled).to.deep.equal([]);
  });

  it("answers a key's call for another workspace's site as an unknown site", async () => {
    const res = await request(appOf([route({})], []))
      .post("/v1/elsewhere/search")
      .set("Authorization", "Bearer good")
      .send({ query: "gnocchi" })
      .expect(404);
    expect(res.body.error.code).to.equal("site_not_found");
  });

  it("answers the widget's CORS preflight on a signed route's path for the site's origin only", async () => {
    const app = appOf([route({})], []);
    await request(app).options("/v1/shop/search").set("Origin", ORIGIN).expect(204);
    await request(app).options("/v1/shop/search").set("Origin", "https://evil.example").expect(403);
  });
});
