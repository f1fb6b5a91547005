/**
 * A site's widget endpoints live at `/v1/<site_id>/…`, beside the API's own `/v1/<name>/…`: every
 * first path segment the service routes under /v1 is read from the app's router and must be a
 * site_id the service refuses, so no site can take a name its widget could never be reached at.
 */
import type { Server } from "node:http";
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

/** A router 2.x layer as far as this reads it. */
interface LayerLike {
  rawPath?: unknown;
  route?: { path: unknown };
  handle: { stack?: LayerLike[] };
}

/** Every path the app routes, mounted routers included. */
function routedPaths(stack: readonly LayerLike[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route !== undefined) return [layer.route.path].flat().map(String);
    return Array.isArray(layer.handle.stack) ? routedPaths(layer.handle.stack) : [];
  });
}

/** The first segments after /v1/ that are names, not parameters. */
function routedNames(server: Server): string[] {
  const app = server.listeners("request")[0] as unknown as { router: { stack: LayerLike[] } };
  const names = routedPaths(app.router.stack)
    .map((path) => /^\/v1\/([^/]+)/.exec(path)?.[1])
    .filter((name): name is string => name !== undefined && !name.startsWith(":"));
  return [...new Set(names)].sort();
}

describe("site ids the API's routes take", function () {
  let database: TestDatabase | undefined;
  let service: TestService;
  let key: string;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url);
    key = await service.key(await service.workspace());
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("reads the routes' own names from the router", () => {
    expect(routedNames(service.server)).to.include.members(["health", "leads", "public", "sites"]);
  });

  it("refuses every routed name as a site_id, and only as a whole id", async () => {
    const names = routedNames(service.server);
    for (const name of names) {
      const res = await request(service.server)
        .post("/v1/sites")
        .set("Authorization", `Bearer ${key}`)
        .send({
          site_id: name,
          business_name: name,
          business_description: "",
          domain: `${name}.example`,
        });
      expect(res.status, name).to.equal(422);
      expect(res.body.error.details.field, name).to.equal("site_id");
    }
    // A name that merely starts like one is a site like any other.
    await request(service.server)
      .post("/v1/sites")
      .set("Authorization", `Bearer ${key}`)
      .send({
        site_id: `${names[0]}-shop`,
        business_name: "Shop",
        business_description: "",
        domain: "shop.example",
      })
      .expect(201);
  });
});
