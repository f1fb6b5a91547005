/**
 * Bodies nested deeper than the service reads: an 800 KB `[[[…]]]` (400,000 levels) and a deep
 * object, as JSON to the sites API, a widget endpoint (parsed by body-parser, and read raw for its
 * signature) and sign-in, and as YAML to `PUT /v1/sites/:id`. Each is 400 invalid_request naming
 * the limit, never a 500 from a walk over the value; a body exactly at the limit is read, and
 * judged by its schema as any other.
 */
import { expect } from "chai";
import request from "supertest";
import type { Response } from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { MAX_NESTING_DEPTH } from "../core/validation/nesting-depth.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const SITE = "deep-shop";
const ORIGIN = `https://${SITE}.example`;

/** `levels` arrays, each the only item of the one around it: `[[…]]`. */
const nestedArray = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
/** `levels` objects, each the value `a` of the one around it: `{"a":{…}}`. */
const nestedObject = (levels: number) => '{"a":'.repeat(levels - 1) + "{}" + "}".repeat(levels - 1);

/** One route that reads a JSON body. */
interface JsonRoute {
  title: string;
  method: "post" | "patch";
  path: string;
  /** The largest body the route reads (64 KiB on widget endpoints, 1 MiB elsewhere). */
  limit: number;
  keyed: boolean;
}

const JSON_ROUTES: JsonRoute[] = [
  {
    title: "PATCH /v1/sites/:id",
    method: "patch",
    path: `/v1/sites/${SITE}`,
    limit: 1024 * 1024,
    keyed: true,
  },
  {
    title: "POST /v1/:siteId/token (a widget endpoint)",
    method: "post",
    path: `/v1/${SITE}/token`,
    limit: 64 * 1024,
    keyed: false,
  },
  {
    title: "POST /v1/:siteId/query (a widget body read raw)",
    method: "post",
    path: `/v1/${SITE}/query`,
    limit: 64 * 1024,
    keyed: true,
  },
  {
    title: "POST /v1/auth/signin",
    method: "post",
    path: "/v1/auth/signin",
    limit: 1024 * 1024,
    keyed: false,
  },
];

/** The answer to a body nested too deeply: 400 invalid_request on `body`, naming the limit. */
function expectTooDeep(res: Response) {
  expect(res.status, res.text.slice(0, 500)).to.equal(400);
  expect(res.body.success).to.equal(false);
  expect(res.body.error.code).to.equal("invalid_request");
  expect(res.body.error.details.field).to.equal("body");
  expect(res.body.error.message).to.contain(`${MAX_NESTING_DEPTH} levels`);
}

/** An answer that is not the depth refusal: the body was read and judged on its content. */
function expectRead(res: Response) {
  expect(res.status, res.text.slice(0, 500)).to.be.below(500);
  expect(res.body.error?.message ?? "").not.to.contain(`${MAX_NESTING_DEPTH} levels`);
}

describe("bodies nested too deeply", function () {
  let database: TestDatabase | undefined;
  let service: TestService;
  let auth: { Authorization: string };

  const send = (route: JsonRoute, body: string) => {
    const agent = request(service.server);
    let req = agent[route.method](route.path)
      .set("Origin", ORIGIN)
      .set("Content-Type", "application/json");
    if (route.keyed) req = req.set(auth);
    return req.send(body);
  };
  const putYaml = (yaml: string) =>
    request(service.server)
      .put(`/v1/sites/${SITE}`)
      .set(auth)
      .set("Content-Type", "application/yaml")
      .send(yaml);

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url);
    const workspaceId = await service.workspace();
    auth = { Authorization: `Bearer ${await service.key(workspaceId)}` };
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: SITE,
      business_name: "Deep Shop",
      business_description: "Things inside things",
      domain: `${SITE}.example`,
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  for (const route of JSON_ROUTES) {
    // As deep as the route's size limit lets a body be: 800 KB, or 60 KB on widget endpoints.
    const levels = Math.min(400_000, Math.floor((route.limit - 4096) / 2));

    it(`400 for a ${levels * 2} byte [[[…]]] to ${route.title}`, async () => {
      expectTooDeep(await send(route, nestedArray(levels)));
    });

    it(`400 for a deep {"a":{"a":…}} to ${route.title}`, async () => {
      expectTooDeep(await send(route, nestedObject(Math.floor(levels / 3))));
    });

    it(`400 for one level over the limit to ${route.title}`, async () => {
      expectTooDeep(await send(route, nestedArray(MAX_NESTING_DEPTH + 1)));
    });

    it(`reads an array exactly at the limit on ${route.title}`, async () => {
      expectRead(await send(route, nestedArray(MAX_NESTING_DEPTH)));
    });

    it(`reads an object exactly at the limit on ${route.title}`, async () => {
      expectRead(await send(route, nestedObject(MAX_NESTING_DEPTH)));
    });
  }

  const site = `business_name: Deep Shop\nbusiness_description: Things\ndomain: ${SITE}.example\n`;

  it("400 for an 800 KB YAML body holding [[[…]]], at its line and column", async () => {
    const res = await putYaml(`${site}adapter: ${nestedArray(400_000)}\n`);
    expectTooDeep(res);
    expect(res.body.error.details).to.include({ line: 4, column: 10 + MAX_NESTING_DEPTH - 1 });
  });

  it("400 for a YAML body of mappings indented too deeply", async () => {
    const lines = Array.from({ length: 300 }, (_, depth) => `${"  ".repeat(depth)}a:`);
    expectTooDeep(await putYaml(`${site}adapter:\n  ${lines.join("\n  ")} 1\n`));
  });

  it("reads a YAML body exactly at the limit (the site's mapping is its first level)", async () => {
    const res = await putYaml(`${site}adapter: ${nestedArray(MAX_NESTING_DEPTH - 1)}\n`);
    expectRead(res);
    expect(res.body.error.details.field).to.equal("adapter");
  });

  it("keeps the site as it was", async () => {
    const stored = await service.store.sites.get(SITE);
    expect(stored?.version).to.equal(1);
  });
});
