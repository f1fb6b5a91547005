/**
 * The query endpoint against a real REST backend (the DRF-style test server): a backend slower
 * than 10 s is 504 adapter_timeout and its request is closed, and the SSRF guard refuses a private
 * baseUrl unless the operator allows private networks.
 */
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { CONFORMANCE_FIELDS } from "../core/host/testing/index.ts";
import { startDrfServer, type DrfServer } from "./helpers/drf-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("POST /v1/:siteId/query on a REST backend", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let backend: DrfServer;
  const services: TestService[] = [];

  async function serviceWithSite(env: Record<string, string>) {
    const service = await startTestService(database!.url, env);
    services.push(service);
    const workspaceId = await service.workspace();
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: `shop-${services.length}`,
      business_name: "Nordic Home",
      business_description: "Furniture",
      domain: "nordichome.example",
      adapter: {
        type: "rest",
        config: { baseUrl: `${backend.origin}/api`, queryMode: "querystring" },
        collections: {
          products: { source: "/products/", ...CONFORMANCE_FIELDS },
          slow: { source: "/slow/", ...CONFORMANCE_FIELDS },
        },
      },
    });
    const key = await service.key(workspaceId, { scopes: ["query:test"] });
    return {
      service,
      query: (body: object) =>
        request(service.server)
          .post(`/v1/shop-${services.length}/query`)
          .set({ Authorization: `Bearer ${key}` })
          .send(body),
    };
  }

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    backend = await startDrfServer({ slowMs: 12_000 });
  });
  after(async () => {
    for (const service of services) await service.stop();
    await backend?.close();
    await database?.drop();
  });

  it("searches the backend when private networks are allowed", async () => {
    const { query } = await serviceWithSite({ SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true" });
    const res = await query({
      collection: "products",
      filters: [{ field: "color", operator: "eq", value: "blue" }],
      sort_by: "price",
      limit: 2,
    }).expect(200);
    expect(res.body.data).to.include({ total: 4, returned: 2 });
    expect(res.body.data.items.map((i: { id: number }) => i.id)).to.deep.equal([10, 6]);
    const sent = backend.requests.at(-1);
    expect(sent?.url).to.equal("/api/products/?color=blue&ordering=price&limit=2");
  });

  it("504 adapter_timeout within 10.5 s for a backend that takes 12 s, and its request is closed", async () => {
    const { query } = await serviceWithSite({ SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true" });
    const closed = backend.clientGone("/api/slow/");
    const started = Date.now();
    const res = await query({ collection: "slow" });
    const elapsed = Date.now() - started;
    expect(res.status).to.equal(504);
    expect(res.body.error.code).to.equal("adapter_timeout");
    expect(elapsed).to.be.below(10_500); // The API reference: the adapter call timeout is 10 s
    await closed; // the backend saw the connection go, not an answer
  });

  it("refuses a private baseUrl through the SSRF guard by default", async () => {
    const { query } = await serviceWithSite({});
    const res = await query({ collection: "products" }).expect(422);
    expect(res.body.error.code).to.equal("adapter_error");
    expect(res.body.error.details.error).to.match(/private|loopback/i);
  });
});
