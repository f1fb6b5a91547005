/**
 * A deleted site's usage leaves with it, on every database: its raw events, quarter-hour and day
 * rollups are removed, so a site made later with the same site_id, in another workspace, reads
 * none of them through any analytics read or the stream's replay.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { idAt } from "../core/store/ids.ts";
import { openStream } from "./helpers/sse-client.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const DAY = 24 * 60 * 60_000;

for (const target of databaseTargets) {
  describe(`a deleted site's usage on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let siteId: string;
    /** The workspace that takes the site_id once the first deleted it, and its key. */
    let taker: string;
    let takerKey: string;

    const site = (workspaceId: string) =>
      service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Reused",
        business_description: "",
        domain: `${siteId}.example`,
      });
    const count = async (table: string) =>
      Number(
        (await service.store.db.knex(table).where({ site_id: siteId }).count({ n: "*" }))[0]!.n,
      );
    const get = (path: string) =>
      request(service.server).get(path).set("Authorization", `Bearer ${takerKey}`).expect(200);

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
      siteId = `reused-${crypto.randomBytes(4).toString("hex")}`;
      const first = await service.workspace();
      await site(first);
      const now = Date.now();
      const rows = Array.from({ length: 1_200 }, (_, i) =>
        usageRow(siteId, {
          type: i % 2 === 0 ? "session_end" : "function_call",
          function_name: i % 2 === 0 ? null : "search_database",
          duration_seconds: i % 2 === 0 ? 90 : null,
          created_at: now - 1 - Math.floor((i * 300 * DAY) / 1_200),
        }),
      );
      await service.store.events.storeUsage(rows);
      const firstKey = await service.key(first, { scopes: ["analytics:read"] });
      // A summary by day keeps the closed days as day rows too.
      await request(service.server)
        .get(`/v1/${siteId}/analytics/summary?period=year&bucket=day`)
        .set("Authorization", `Bearer ${firstKey}`)
        .expect(200);
      expect(await count("usage_day_rollups")).to.be.greaterThan(0);

      await service.sites.delete(operatorPrincipal(first, "test"), siteId);
      taker = await service.workspace();
      await site(taker);
      takerKey = await service.key(taker, { scopes: ["analytics:read"] });
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("removes the raw events and both rollups with the site", async () => {
      expect(await count("usage_events")).to.equal(0);
      expect(await count("usage_rollups")).to.equal(0);
      expect(await count("usage_day_rollups")).to.equal(0);
    });

    it("lists none of them to the site made later with the same site_id", async () => {
      const res = await get(`/v1/${siteId}/analytics/events?limit=1000`);
      expect(res.body.data).to.deep.equal([]);
    });

    it("counts none of them in its summaries", async () => {
      for (const query of ["period=year&bucket=day", "period=year&bucket=week", "period=day"]) {
        const res = await get(`/v1/${siteId}/analytics/summary?${query}`);
        expect(res.body.data.totals, query).to.deep.equal({
          sessions: 0,
          minutes: 0,
          function_calls: 0,
          db_queries: 0,
        });
      }
    });

    it("counts none of them in the workspace's usage", async () => {
      const from = new Date(Date.now() - 360 * DAY).toISOString().slice(0, 10);
      const res = await get(`/v1/analytics?from=${from}&group_by=site_id`);
      expect(res.body.data).to.deep.equal([]);
    });

    it("replays none of them on its stream", async () => {
      const stream = await openStream(`${service.url}/v1/${siteId}/analytics/stream`, {
        Accept: "text/event-stream",
        Authorization: `Bearer ${takerKey}`,
        "Last-Event-ID": idAt("evt", Date.now() - 365 * DAY),
      });
      try {
        expect(stream.status).to.equal(200);
        // A replay comes before anything live: the live event must be the first one streamed.
        const live = await service.events.recordUsage({ site_id: siteId, type: "db_query" });
        await stream.waitFor(1);
        expect(stream.events.map((event) => event.id)).to.deep.equal([live.id]);
      } finally {
        stream.close();
      }
    });

    it("removes what a crash left of a deleted site's usage before a new site takes its id", async () => {
      const leftId = `left-${crypto.randomBytes(4).toString("hex")}`;
      await service.store.events.storeUsage([usageRow(leftId), usageRow(leftId)]);
      await service.store.deletedSites.mark(leftId, "ws_crashed", Date.now());
      await service.sites.create(operatorPrincipal(taker, "test"), {
        site_id: leftId,
        business_name: "Taken again",
        business_description: "",
        domain: `${leftId}.example`,
      });
      expect(await service.store.events.listUsage(leftId)).to.deep.equal([]);
      expect(await service.store.deletedSites.has(leftId)).to.equal(false);
      const res = await get(`/v1/${leftId}/analytics/summary?period=day`);
      expect(res.body.data.totals.db_queries).to.equal(0);
    });
  });
}
