/**
 * The widget's Origin check at its edges: a browser's same-origin GET carries no Origin (the demo
 * page reading its site's config from this service), and a refused page may read why (config
 * only) but never reach anything else.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the widget's origin check", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let service: TestService;
  let siteId: string;
  let host: string;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
    host = new URL(service.url).host;
    siteId = `origin-${crypto.randomBytes(4).toString("hex")}`;
    await service.sites.create(operatorPrincipal(await service.workspace(), "test"), {
      site_id: siteId,
      business_name: "Origin Deli",
      business_description: "",
      domain: "origindeli.example",
      additional_domains: [host],
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("takes a same-origin GET without Origin as coming from the service's own address", async () => {
    const res = await request(service.server)
      .get(`/v1/${siteId}/config`)
      .set("Host", host)
      .set("Sec-Fetch-Site", "same-origin")
      .expect(200);
    expect(res.body.data.site_id).to.equal(siteId);
    expect(res.headers["access-control-allow-origin"]).to.equal(`http://${host}`);
  });

  it("refuses a GET without Origin from anywhere else, or under another host", async () => {
    for (const site of ["cross-site", "same-site", "none"]) {
      const res = await request(service.server)
        .get(`/v1/${siteId}/config`)
        .set("Host", host)
        .set("Sec-Fetch-Site", site)
        .expect(403);
      expect(res.body.error.code).to.equal("origin_not_allowed");
    }
    const other = await request(service.server)
      .get(`/v1/${siteId}/config`)
      .set("Host", "localhost:1")
      .set("Sec-Fetch-Site", "same-origin")
      .expect(403);
    expect(other.body.error.details.origin).to.equal("http://localhost:1");
  });

  it("lets a refused page read config's refusal, and nothing else's", async () => {
    const config = await request(service.server)
      .get(`/v1/${siteId}/config`)
      .set("Origin", "https://copycat.example")
      .expect(403);
    expect(config.headers["access-control-allow-origin"]).to.equal("https://copycat.example");
    expect(config.body.data).to.equal(undefined);
    expect(config.body.error.code).to.equal("origin_not_allowed");
    const intelligence = await request(service.server)
      .get(`/v1/${siteId}/site-intelligence`)
      .set("Origin", "https://copycat.example")
      .expect(403);
    expect(intelligence.headers["access-control-allow-origin"]).to.equal(undefined);
    const token = await request(service.server)
      .post(`/v1/${siteId}/token`)
      .set("Origin", "https://copycat.example")
      .send({})
      .expect(403);
    expect(token.headers["access-control-allow-origin"]).to.equal(undefined);
    const preflight = await request(service.server)
      .options(`/v1/${siteId}/token`)
      .set("Origin", "https://copycat.example")
      .set("Access-Control-Request-Method", "POST")
      .expect(403);
    expect(preflight.headers["access-control-allow-origin"]).to.equal(undefined);
  });
});
