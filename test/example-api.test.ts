/**
 * The demo's example backend: served under /example-api/ when SITEVOICE_DEMO is on, files only
 * (no listing, no way out of examples/api/), and absent when the demo is off.
 */
import { expect } from "chai";
import request from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the demo's example backend", function () {
  let database: TestDatabase | undefined;
  let demo: TestService;
  let production: TestService;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    demo = await startTestService(database.url, { SITEVOICE_DEMO: "on" });
    production = await startTestService(database.url);
  });
  after(async () => {
    await demo?.stop();
    await production?.stop();
    await database?.drop();
  });

  it("serves the example menu as a bare JSON list, as a customer's API would", async () => {
    const res = await request(demo.server)
      .get("/example-api/luigis-trattoria/menu.json")
      .expect(200);
    expect(res.headers["content-type"]).to.match(/^application\/json/);
    expect(res.body).to.be.an("array").with.length.at.least(10);
    expect(res.body[0]).to.have.keys([
      "name",
      "description",
      "course",
      "price",
      "vegetarian",
      "allergens",
    ]);
  });

  for (const path of [
    "/example-api/luigis-trattoria/nothing.json",
    "/example-api/luigis-trattoria/",
    "/example-api/../package.json",
    "/example-api/%2e%2e/package.json",
    "/example-api/luigis-trattoria/.hidden",
  ]) {
    it(`answers ${path} with 404 in the envelope, never a file outside examples/api/`, async () => {
      const res = await request(demo.server).get(path);
      expect(res.status).to.equal(404);
      expect(res.body.success).to.equal(false);
      expect(JSON.stringify(res.body)).not.to.include('"version"');
    });
  }

  it("is not there when the demo is off (the default outside the embedded database)", async () => {
    const res = await request(production.server)
      .get("/example-api/luigis-trattoria/menu.json")
      .expect(404);
    expect(res.body.error.code).to.equal("not_found");
  });
});
