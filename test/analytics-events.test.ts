/**
 * `GET /v1/:siteId/analytics/events` on every database: newest first, the window and type
 * filters, keyset pages that return every event present when paging began exactly once while
 * events are written in between, and each refusal of the API reference's analytics rows.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { UsageEventRow } from "../core/store/repos/events-repo.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const HOUR = 60 * 60_000;
const TYPES = ["session_start", "function_call", "db_query", "session_end"] as const;

for (const target of databaseTargets) {
  describe(`analytics events on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let siteId: string;
    let key: string;
    /** The events of the site as written, by id. */
    const written = new Map<string, UsageEventRow>();

    const get = (path: string, auth = key) =>
      request(service.server).get(path).set("Authorization", `Bearer ${auth}`);

    /** Rows of the site spread over the last `hours`, several sharing each millisecond. */
    async function write(count: number, hours: number, now = Date.now()): Promise<void> {
      const rows = Array.from({ length: count }, (_, i) =>
        usageRow(siteId, {
          type: TYPES[i % TYPES.length]!,
          function_name: i % TYPES.length === 1 ? "search_database" : null,
          duration_seconds: i % TYPES.length === 3 ? 61 : null,
          // Three events to a millisecond: the id breaks the tie.
          created_at: now - 1 - Math.floor(i / 3) * Math.floor((3 * hours * HOUR) / count),
        }),
      );
      for (let i = 0; i < rows.length; i += 500) {
        await service.store.events.storeUsage(rows.slice(i, i + 500));
      }
      for (const row of rows) written.set(row.id, row);
    }

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
      const workspaceId = await service.workspace();
      siteId = `stats-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Stats Cafe",
        business_description: "",
        domain: `${siteId}.example`,
      });
      key = await service.key(workspaceId, { scopes: ["analytics:read"] });
      await write(2_500, 24 * 20);
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("pages every event of the window exactly once, newest first, while events are written", async () => {
      const present = new Set(written.keys());
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: request.Response = await get(
          `/v1/${siteId}/analytics/events?limit=300${cursor === null ? "" : `&cursor=${cursor}`}`,
        ).expect(200);
        seen.push(...res.body.data.map((event: { id: string }) => event.id));
        cursor = res.body.meta.next_cursor;
        pages += 1;
        // Between pages: new events now (after the window's end), and late ones inside it.
        await write(20, 0.01, Date.now() + 5);
        await write(5, 24 * 19);
      } while (cursor !== null);
      expect(pages).to.be.at.least(9);
      expect(new Set(seen).size, "no event repeated").to.equal(seen.length);
      const missed = [...present].filter((id) => !seen.includes(id));
      expect(missed, "no event present at the start skipped").to.deep.equal([]);
      const order = seen.map((id) => written.get(id)!);
      for (let i = 1; i < order.length; i += 1) {
        const [a, b] = [order[i - 1]!, order[i]!];
        expect(
          a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id),
        ).to.equal(true);
      }
    });

    it("answers events in the contract's shape, filtered by type and window", async () => {
      const since = new Date(Date.now() - 48 * HOUR).toISOString();
      const until = new Date(Date.now() - 24 * HOUR).toISOString();
      const res = await get(
        `/v1/${siteId}/analytics/events?type=session_end&since=${since}&until=${until}&limit=1000`,
      ).expect(200);
      const expected = [...written.values()].filter(
        (row) =>
          row.type === "session_end" &&
          row.created_at >= Date.parse(since) &&
          row.created_at < Date.parse(until),
      );
      expect(res.body.data).to.have.length(expected.length);
      expect(expected.length).to.be.above(0);
      const first = res.body.data[0];
      expect(Object.keys(first).sort()).to.deep.equal([
        "created_at",
        "duration_seconds",
        "id",
        "site_id",
        "type",
      ]);
      expect(first.duration_seconds).to.equal(61);
      expect(res.body.meta.next_cursor).to.equal(null);
      const byDefault = await get(`/v1/${siteId}/analytics/events`).expect(200);
      expect(byDefault.body.data).to.have.length(100);
    });

    it("refuses each bad parameter with 400 invalid_params naming it", async () => {
      const cases: Array<[string, string]> = [
        ["since=yesterday", "since"],
        ["since=2026-02-30", "since"],
        ["until=2026-11-01T10:00:00", "until"],
        ["type=page_view", "type"],
        ["limit=0", "limit"],
        ["limit=1001", "limit"],
        ["limit=ten", "limit"],
        ["cursor=not-a-cursor", "cursor"],
        ["site=x", "site"],
        ["type=db_query&type=session_end", "type"],
        ["since=2026-11-02&until=2026-11-01", "since"],
      ];
      for (const [query, field] of cases) {
        const res = await get(`/v1/${siteId}/analytics/events?${query}`).expect(400);
        expect(res.body.error.code, query).to.equal("invalid_params");
        expect(res.body.error.details.field, query).to.equal(field);
        expect(res.body.meta.request_id).to.match(/^req_/);
      }
      const page = await get(`/v1/${siteId}/analytics/events?limit=5&type=db_query`).expect(200);
      const cursor = page.body.meta.next_cursor as string;
      const changed = await get(
        `/v1/${siteId}/analytics/events?cursor=${cursor}&type=session_end`,
      ).expect(400);
      expect(changed.body.error.details.field).to.equal("type");
      await get(`/v1/${siteId}/analytics/events?cursor=${cursor}&type=db_query`).expect(200);
    });

    it("answers 401 without a valid key, 403 without analytics:read, 404 for a site not the workspace's", async () => {
      const none = await request(service.server).get(`/v1/${siteId}/analytics/events`).expect(401);
      expect(none.body.error.code).to.equal("unauthorized");
      await get(`/v1/${siteId}/analytics/events`, "vk_test_" + "x".repeat(32)).expect(401);
      const workspaceId = (await service.store.sites.get(siteId))!.workspace_id;
      const reader = await service.key(workspaceId, { scopes: ["sites:read"] });
      const forbidden = await get(`/v1/${siteId}/analytics/events`, reader).expect(403);
      expect(forbidden.body.error.code).to.equal("forbidden");
      const stranger = await service.key(await service.workspace(), {
        scopes: ["analytics:read"],
      });
      const foreign = await get(`/v1/${siteId}/analytics/events`, stranger).expect(404);
      expect(foreign.body.error.code).to.equal("site_not_found");
      const unknown = await get(`/v1/no-such-site-here/analytics/events`).expect(404);
      expect(unknown.body.error.code).to.equal("site_not_found");
    });
  });
}
