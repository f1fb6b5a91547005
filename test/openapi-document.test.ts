/**
 * The OpenAPI document of the route table: docs/openapi.json is valid OpenAPI 3.1 under an
 * independent validator (@readme/openapi-parser, which also resolves every `$ref`), the service
 * serves the same document at `GET /v1/openapi.json` (without auth, outside the envelope), and
 * it describes what each route runs: its security, its body's schema and its errors.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { validate } from "@readme/openapi-parser";
import { expect } from "chai";
import request from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const file = path.join(fileURLToPath(new URL("..", import.meta.url)), "docs", "openapi.json");
/** The committed document; read loosely, as a client would (its shape is what the test checks). */
type Loose = { [key: string]: Loose } & Record<string, unknown>;
const committed = () => JSON.parse(fs.readFileSync(file, "utf8")) as Loose;

describe("the OpenAPI document", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let service: TestService;

  before(async function () {
    const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url, {});
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("is valid OpenAPI 3.1 under an independent validator, every $ref resolved", async () => {
    const result = await validate(file);
    expect(result, JSON.stringify(result)).to.include({ valid: true });
    expect(committed().openapi).to.equal("3.1.0");
  });

  it("is served at GET /v1/openapi.json without auth, as it is committed, outside the envelope", async () => {
    const res = await request(service.server).get("/v1/openapi.json").expect(200);
    expect(res.headers["content-type"]).to.match(/^application\/json/);
    expect(res.body).to.deep.equal(committed());
  });

  it("describes a signed widget route: the session's headers or a key, its body schema, and the errors its phases answer with", () => {
    const knowledge = committed().paths!["/v1/{siteId}/knowledge"]!.post!;
    expect(knowledge.security).to.deep.equal([
      { widgetSession: [], widgetSignature: [] },
      { apiKey: ["query:test"] },
    ]);
    expect(knowledge.requestBody!.content!["application/json"]!.schema).to.deep.equal({
      $ref: "#/components/schemas/knowledge-search",
    });
    const responses = knowledge.responses!;
    expect(Object.keys(responses)).to.deep.equal([
      "200",
      "400",
      "401",
      "403",
      "404",
      "413",
      "415",
      "429",
      "500",
      "503",
    ]);
    expect(responses["401"]!.description).to.include("`invalid_signature`");
    expect(responses["403"]!.description).to.include("`origin_not_allowed`");
  });

  it("bundles each body schema without $id, its references pointing inside the document", () => {
    const schemas = committed().components!.schemas;
    const text = JSON.stringify(schemas);
    expect(text).to.not.include('"$id"');
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.every((ref) => ref.startsWith("#/components/schemas/"))).to.equal(true);
  });
});
