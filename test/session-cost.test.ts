/**
 * A session's cost given after the fact (`EventBus.addSessionCost`) on every database: it lands on
 * the session_end event and on its rollup once, however often or concurrently it is given, and a
 * summary shows it without counting the session again.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { UsageEventRow } from "../core/store/repos/events-repo.ts";
import { ROLLUPS_TABLE } from "../core/store/repos/usage-rollups.ts";
import { refusalFrom } from "./helpers/thrown.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const AT = Date.UTC(2026, 10, 23, 14, 2);
const WINDOW = { since: Date.UTC(2026, 10, 23), until: Date.UTC(2026, 10, 24) };

for (const target of databaseTargets) {
  describe(`session cost after the fact on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let workspaceId: string;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
      workspaceId = await service.workspace();
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    /**
     * A new site with one session: its start, and its end (90 s, no cost yet) beside another
     * session's end (30 s, no cost) in the same quarter hour, so they share a rollup row.
     */
    async function endedSession(): Promise<{ siteId: string; end: UsageEventRow }> {
      const siteId = `cost-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Cost",
        business_description: "",
        domain: `${siteId}.example`,
      });
      const [, end] = await service.store.events.storeUsage([
        usageRow(siteId, { type: "session_start", created_at: AT - 90_000 }),
        usageRow(siteId, { type: "session_end", duration_seconds: 90, created_at: AT }),
        usageRow(siteId, { type: "session_end", duration_seconds: 30, created_at: AT + 1 }),
      ]);
      return { siteId, end: end!.row };
    }

    const summary = (siteId: string) =>
      service.analytics.summary(operatorPrincipal(workspaceId, "test"), siteId, {
        window: WINDOW,
        bucket: "day",
      });

    async function sessionEndRollup(siteId: string) {
      const row = await service.store.db
        .knex(ROLLUPS_TABLE)
        .where({ site_id: siteId, type: "session_end" })
        .first();
      return {
        events: Number(row.events),
        duration_seconds: Number(row.duration_seconds),
        cost_cents: Number(row.cost_cents),
        costed: Number(row.costed),
      };
    }

    const costOf = async (eventId: string) =>
      (await service.store.db.knex<UsageEventRow>("usage_events").where({ id: eventId }).first())
        ?.cost_cents;

    it("adds the cost to the event and its rollup: the summary shows it, its sessions and minutes unchanged", async () => {
      const { siteId, end } = await endedSession();
      const before = await summary(siteId);
      expect(before.totals).to.deep.equal({
        sessions: 1,
        minutes: 2,
        function_calls: 0,
        db_queries: 0,
      });

      expect(await service.events.addSessionCost(end.id, 12.5)).to.deep.equal({ added: true });

      expect(Number(await costOf(end.id))).to.equal(12.5);
      expect(await sessionEndRollup(siteId)).to.deep.equal({
        events: 2,
        duration_seconds: 120,
        cost_cents: 12.5,
        costed: 1,
      });
      const after = await summary(siteId);
      expect(after.totals).to.deep.equal({ ...before.totals, cost_cents: 12.5 });
      expect(after.buckets.find((b) => b.bucket === "2026-11-23")).to.deep.include({
        sessions: 1,
        minutes: 2,
        cost_cents: 12.5,
      });
    });

    it("changes nothing when the event has its cost already, and says so", async () => {
      const { siteId, end } = await endedSession();
      await service.events.addSessionCost(end.id, 4);
      const rollup = await sessionEndRollup(siteId);

      expect(await service.events.addSessionCost(end.id, 99)).to.deep.equal({ added: false });

      expect(Number(await costOf(end.id))).to.equal(4);
      expect(await sessionEndRollup(siteId)).to.deep.equal(rollup);
      expect((await summary(siteId)).totals.cost_cents).to.equal(4);
    });

    it("counts the cost once when calls for one event race", async () => {
      const { siteId, end } = await endedSession();
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => service.events.addSessionCost(end.id, 7)),
      );
      expect(answers.filter((answer) => answer.added)).to.have.length(1);
      expect(await sessionEndRollup(siteId)).to.deep.equal({
        events: 2,
        duration_seconds: 120,
        cost_cents: 7,
        costed: 1,
      });
    });

    it("refuses an unknown event id", async () => {
      const refusal = await refusalFrom(service.events.addSessionCost("evt_unknown", 3));
      expect(refusal.code).to.equal("not_found");
      expect(refusal.details).to.deep.equal({ id: "evt_unknown" });
    });

    it("refuses an event other than a session_end, changing nothing", async () => {
      const { siteId } = await endedSession();
      const query = usageRow(siteId, { type: "db_query", created_at: AT });
      await service.store.events.storeUsage([query]);

      const refusal = await refusalFrom(service.events.addSessionCost(query.id, 3));
      expect(refusal.code).to.equal("validation_failed");
      expect(refusal.details).to.include({ field: "event_id" });
      expect(await costOf(query.id)).to.equal(null);
      expect((await summary(siteId)).totals).not.to.have.property("cost_cents");
    });

    for (const cost of [-1, Number.NaN]) {
      it(`refuses the cost ${cost}, changing nothing`, async () => {
        const { siteId, end } = await endedSession();
        const refusal = await refusalFrom(service.events.addSessionCost(end.id, cost));
        expect(refusal.code).to.equal("invalid_request");
        expect(refusal.details).to.deep.equal({ field: "cost_cents" });
        expect(await costOf(end.id)).to.equal(null);
        expect((await sessionEndRollup(siteId)).costed).to.equal(0);
      });
    }
  });
}
