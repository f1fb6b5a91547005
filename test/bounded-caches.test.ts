/**
 * Every per-site and per-session cache is bounded by its configured entries: 10,000 distinct
 * sites, each read, searched through its adapter and visited by a signed session, leave at most
 * SITEVOICE_CACHE_SITES sites, SITEVOICE_CACHE_SESSIONS sessions and SITEVOICE_CACHE_ADAPTERS
 * adapter instances in memory. (The per-site values kept in WeakMaps, origins and checked
 * collections, are keyed by the cached site objects and go with them.)
 *
 * The 10,000 sites are copies of one site made through the API, inserted as rows: the caches
 * read them as they read any site, and creating each through the API would only make the test
 * slow.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { siteAdapter } from "../core/search/site-search.ts";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const SITES = 10_000;
const LIMITS = { sites: 100, sessions: 150, adapters: 50 };

describe("bounded caches under 10,000 distinct sites and sessions", function () {
  this.timeout(180_000);
  let service: TestService;
  const siteIds: string[] = [];

  before(async () => {
    service = await startTestService("sqlite::memory:", {
      SITEVOICE_CACHE_SITES: String(LIMITS.sites),
      SITEVOICE_CACHE_SESSIONS: String(LIMITS.sessions),
      SITEVOICE_CACHE_ADAPTERS: String(LIMITS.adapters),
    });
    const operator = operatorPrincipal(service.boot.workspaceId, "test");
    await service.sites.create(operator, {
      site_id: "bounded-0",
      business_name: "Bounded",
      business_description: "One of many",
      domain: "bounded-0.example",
      adapter: {
        type: "rest",
        config: { baseUrl: "https://api.bounded.example/v1" },
        collections: {
          products: {
            source: "/products/",
            searchable_fields: ["name"],
            filterable_fields: ["price"],
            display_fields: ["name", "price"],
          },
        },
      },
    });
    const model = await service.store.sites.get("bounded-0");
    if (model === undefined) throw new Error("the model site was not stored");
    siteIds.push("bounded-0");
    for (let i = 1; i < SITES; i++) {
      const siteId = `bounded-${i}`;
      const config = model.config
        .replace('"site_id":"bounded-0"', `"site_id":"${siteId}"`)
        .replace('"bounded-0.example"', `"${siteId}.example"`);
      await service.store.sites.insert({ ...model, site_id: siteId, config });
      siteIds.push(siteId);
    }
  });

  after(async () => {
    await service?.stop();
  });

  it("holds at most the configured sites, sessions and adapter instances", async () => {
    let searched = 0;
    for (const siteId of siteIds) {
      const found = await service.sites.publicSite(siteId);
      expect(found?.site.site_id, siteId).to.equal(siteId);
      const { adapter } = await siteAdapter(service.plugins, found!.site);
      expect(adapter.search, siteId).to.be.a("function");
      searched += 1;

      const { session, signingSecret } = await service.sessions.create(
        { site_id: siteId, workspace_id: service.boot.workspaceId },
        { ip: "203.0.113.9", userAgent: "bounded" },
      );
      const body = Buffer.from(`{"n":${searched}}`);
      const signature = crypto.createHmac("sha256", signingSecret).update(body).digest("hex");
      const verified = await service.sessions.verify(
        siteId,
        session.id,
        `sha256=${signature}`,
        body,
      );
      expect(verified.id).to.equal(session.id);

      expect(service.siteCache.size).to.be.at.most(LIMITS.sites);
      expect(service.sessions.heldCount).to.be.at.most(LIMITS.sessions);
      expect(service.plugins.scopedInstanceCount).to.be.at.most(LIMITS.adapters);
    }
    expect(searched).to.equal(SITES);
    // Full, not empty: the bound is what stops them, not a cache that keeps nothing.
    expect(service.siteCache.size).to.equal(LIMITS.sites);
    expect(service.sessions.heldCount).to.equal(LIMITS.sessions);
    expect(service.plugins.scopedInstanceCount).to.equal(LIMITS.adapters);
  });
});
