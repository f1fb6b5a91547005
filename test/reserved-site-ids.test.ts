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

/** Every path the app routes, mounted routers included (under their mount path). */
function routedPaths(stack: readonly LayerLike[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route !== undefined) return [layer.route.path].flat().map(String);
    if (!Array.isArray(layer.handle.stack)) return [];
    const mount = typeof layer.rawPath === "string" && layer.rawPath !== "/" ? layer.rawPath : "";
    return routedPaths(layer.handle.stack).map((path) => `${mount}${path === "/" ? "" : path}`);
  });
}

/** The first segments after /v1/ that are names, not parameters. */
function routedNames(server: Server): string[] {
  // The Express app among the server's request listeners (the service also listens itself).
  const app = server.listeners("request").find((listener) => "router" in listener) as unknown as {
    router: { stack: LayerLike[] };
  };
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

  // The names are only known once the app is built, so one test takes them all; it checks the
  // answer to every name before failing, and names each name that was not refused.
  it("refuses every routed name as a site_id (422 naming site_id, or 400 for a name no id can be)", async () => {
    const names = routedNames(service.server);
    // An empty list would pass every check below.
    expect(names, "the routed names").to.have.length.above(0);
    const answers: Record<string, { status: number; field: unknown }> = {};
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
      answers[name] = { status: res.status, field: res.body.error?.details?.field };
    }
    const each = <T>(value: T) => Object.fromEntries(names.map((name) => [name, value]));
    const statuses = Object.fromEntries(names.map((name) => [name, answers[name]!.status]));
    // A name no site_id can have (`openapi.json`: a dot) is refused by the id's form (400); any
    // other by the reserved list (422).
    const refusal = (name: string) => (/^[a-z0-9][a-z0-9_-]{2,62}$/.test(name) ? 422 : 400);
    expect(statuses, "the status for each name").to.deep.equal(
      Object.fromEntries(names.map((name) => [name, refusal(name)])),
    );
    const fields = Object.fromEntries(names.map((name) => [name, answers[name]!.field]));
    expect(fields, "the field named for each name").to.deep.equal(each("site_id"));
  });

  it("takes a site_id that merely starts like a routed name, like any other", async () => {
    const [first] = routedNames(service.server);
    expect(first, "the first routed name").to.be.a("string");
    // A name that merely starts like one is a site like any other.
    await request(service.server)
      .post("/v1/sites")
      .set("Authorization", `Bearer ${key}`)
      .send({
        site_id: `${first}-shop`,
        business_name: "Shop",
        business_description: "",
        domain: "shop.example",
      })
      .expect(201);
  });
});
