/**
 * `GET /v1/analytics` on every database: minutes, sessions and events of a workspace's sites by
 * site, UTC day and type, from the rollups, compared with a recomputation from the events
 * written; never another workspace's sites, a per-site key's own site only; each bad parameter
 * a 400 invalid_params naming it.
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

const DAY = 24 * 60 * 60_000;
const TYPES = ["session_start", "session_end", "function_call", "db_query"];
const FROM = Date.UTC(2026, 9, 1);

for (const target of databaseTargets) {
  describe(`workspace usage on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let workspaceId: string;
    let key: string;
    const ours: string[] = [];
    const events: UsageEventRow[] = [];

    async function site(workspace: string): Promise<string> {
      const siteId = `use-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspace, "test"), {
        site_id: siteId,
        business_name: "Usage",
        business_description: "",
        domain: `${siteId}.example`,
      });
      const rows = Array.from({ length: 300 }, (_, i) => {
        const type = TYPES[i % TYPES.length]!;
        return usageRow(siteId, {
          type,
          function_name: type === "function_call" ? "scroll_to" : null,
          duration_seconds: type === "session_end" ? 30 + (i % 11) * 17 : null,
          created_at: FROM + ((i * 3_600_007) % (20 * DAY)),
        });
      });
      await service.store.events.storeUsage(rows);
      events.push(...rows);
      return siteId;
    }

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
      workspaceId = await service.workspace();
      key = await service.key(workspaceId, { scopes: ["analytics:read"] });
      ours.push(await site(workspaceId), await site(workspaceId));
      await site(await service.workspace());
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    const usage = (query: string, auth = key) =>
      request(service.server).get(`/v1/analytics?${query}`).set("Authorization", `Bearer ${auth}`);

    /** The groups a recomputation gives for the events of `sites` in [since, until). */
    function expected(sites: string[], since: number, until: number, groups: string[]) {
      const sums = new Map<string, Record<string, string | number>>();
      for (const event of events) {
        if (!sites.includes(event.site_id) || event.created_at < since || event.created_at >= until)
          continue;
        const keys: Record<string, string> = {};
        if (groups.includes("site_id")) keys.site_id = event.site_id;
        if (groups.includes("day"))
          keys.day = new Date(event.created_at).toISOString().slice(0, 10);
        if (groups.includes("type")) keys.type = event.type;
        const id = groups.map((group) => keys[group]).join("|");
        const sum = sums.get(id) ?? { ...keys, seconds: 0, sessions: 0, events: 0 };
        if (event.type === "session_end") (sum.seconds as number) += event.duration_seconds!;
        if (event.type === "session_start") (sum.sessions as number) += 1;
        (sum.events as number) += 1;
        sums.set(id, sum);
      }
      return [...sums.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, { seconds, ...sum }]) => ({
          ...sum,
          minutes: Math.round(((seconds as number) / 60) * 100) / 100,
        }));
    }

    const normalized = (rows: Array<Record<string, unknown>>) =>
      rows
        .map((row) => ({ ...row }))
        .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

    it("sums the workspace's sites by site, by day and type, and by all three", async () => {
      const until = FROM + 15 * DAY;
      for (const groups of [["site_id"], ["day", "type"], ["site_id", "day", "type"]]) {
        const res = await usage(
          `from=2026-10-01&to=${new Date(until).toISOString()}&group_by=${groups.join(",")}`,
        ).expect(200);
        expect(normalized(res.body.data), groups.join()).to.deep.equal(
          normalized(expected(ours, FROM, until, groups)),
        );
      }
    });

    it("shows a per-site key its own site only", async () => {
      const perSite = await service.key(workspaceId, {
        scopes: ["sites:read", "analytics:read"],
        siteIds: [ours[0]!],
      });
      const res = await usage("from=2026-10-01&to=2026-11-01", perSite).expect(200);
      expect(res.body.data.map((row: { site_id: string }) => row.site_id)).to.deep.equal([ours[0]]);
    });

    it("refuses bad parameters with 400 invalid_params naming them, and keys without the scope", async () => {
      const cases: Array<[string, string]> = [
        ["from=last-week", "from"],
        ["from=2026-11-01&to=2026-10-01", "from"],
        ["from=2025-01-01&to=2026-06-01", "to"],
        ["group_by=month", "group_by"],
        ["group_by=site_id,site_id", "group_by"],
        ["site_id=x", "site_id"],
      ];
      for (const [query, field] of cases) {
        const res = await usage(query).expect(400);
        expect(res.body.error.code, query).to.equal("invalid_params");
        expect(res.body.error.details.field, query).to.equal(field);
      }
      await request(service.server).get("/v1/analytics").expect(401);
      const reader = await service.key(workspaceId, { scopes: ["sites:read"] });
      const forbidden = await usage("", reader).expect(403);
      expect(forbidden.body.error.code).to.equal("forbidden");
    });
  });
}
