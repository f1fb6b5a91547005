/**
 * `usage.threshold` events on every database: each of 50 %, 80 % and 100 % of a plan's bundled
 * minutes recorded once per workspace and month as the month's minutes cross it, however often
 * and however concurrently the check runs; nothing for a plan without a bundle or for another
 * workspace; and the check made after session ends reach the event bus, its events delivered to
 * webhooks and its failures only logged.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import pino from "pino";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { ThresholdWatch } from "../core/analytics/threshold-watch.ts";
import { monthOf, UsageThresholds } from "../core/analytics/usage-thresholds.ts";
import type { ServiceEvent } from "../core/events/event-bus.ts";
import type { Plan } from "../core/settings.ts";
import { THRESHOLDS_TABLE } from "../core/store/repos/usage-thresholds-repo.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";

const NOVEMBER = Date.UTC(2026, 10, 12, 9, 30);
const DECEMBER = Date.UTC(2026, 11, 2, 16);

describe("the month of a usage threshold", () => {
  it("is the calendar month in UTC, from its first instant to the next month's", () => {
    expect(monthOf(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).to.deep.equal({
      month: "2026-12",
      since: Date.UTC(2026, 11, 1),
      until: Date.UTC(2027, 0, 1),
    });
    expect(monthOf(Date.UTC(2027, 0, 1)).month).to.equal("2027-01");
  });
});

for (const target of databaseTargets) {
  describe(`usage thresholds on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_JOBS: "off",
        SITEVOICE_PLAN_MINUTES: "starter=10",
      });
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    /** A new workspace of `plan` with one site. */
    async function workspaceWithSite(plan: Plan): Promise<{ workspaceId: string; siteId: string }> {
      const workspaceId = await service.workspace(plan);
      const siteId = `thr-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Thresholds",
        business_description: "",
        domain: `${siteId}.example`,
      });
      return { workspaceId, siteId };
    }

    /** A session of `minutes` ending at `at`, stored straight into the store (no bus, no watch). */
    const ended = (siteId: string, minutes: number, at: number) =>
      service.store.events.storeUsage([
        usageRow(siteId, { type: "session_end", duration_seconds: minutes * 60, created_at: at }),
      ]);

    /** The percents of the usage.threshold events recorded for the workspace, oldest first. */
    async function recorded(workspaceId: string): Promise<unknown[]> {
      const rows = await service.store.events.listService(workspaceId);
      return rows
        .filter((row) => row.type === "usage.threshold")
        .map((row) => (JSON.parse(row.data) as { percent: number }).percent);
    }

    const percents = (events: ServiceEvent[]) => events.map((event) => event.data.percent);

    it("records 50, 80 and 100 % once each as the month's minutes cross them", async () => {
      const { workspaceId, siteId } = await workspaceWithSite("starter");
      const check = () => service.usageThresholds.check(workspaceId, NOVEMBER);
      await ended(siteId, 4.5, NOVEMBER);
      expect(await check()).to.deep.equal([]);
      await ended(siteId, 1, NOVEMBER + 60_000);
      expect(percents(await check())).to.deep.equal([50]);
      expect(await check()).to.deep.equal([]);
      await ended(siteId, 2.7, NOVEMBER + 120_000);
      const eighty = await check();
      expect(eighty.map((event) => event.data)).to.deep.equal([
        {
          workspace_id: workspaceId,
          plan: "starter",
          month: "2026-11",
          percent: 80,
          minutes_used: 8.2,
          minutes_included: 10,
        },
      ]);
      expect(eighty[0]).to.include({ type: "usage.threshold", workspace_id: workspaceId });
      await ended(siteId, 1.8, NOVEMBER + 180_000);
      expect(percents(await check())).to.deep.equal([100]);
      await ended(siteId, 30, NOVEMBER + 240_000);
      expect(await check()).to.deep.equal([]);
      expect(await recorded(workspaceId)).to.deep.equal([50, 80, 100]);
    });

    it("records every threshold a single jump crosses", async () => {
      const { workspaceId, siteId } = await workspaceWithSite("starter");
      await ended(siteId, 12, NOVEMBER);
      const events = await service.usageThresholds.check(workspaceId, NOVEMBER);
      expect(percents(events)).to.deep.equal([50, 80, 100]);
      expect(events.map((event) => event.data.minutes_used)).to.deep.equal([12, 12, 12]);
    });

    it("records each crossing once however many checks run at once, on one instance or two, and webhooks get each once", async () => {
      const { workspaceId, siteId } = await workspaceWithSite("starter");
      const endpoint = await addEndpoint(service.store, service.ring, {
        workspaceId,
        url: "https://hooks.example/usage",
        events: ["usage.threshold"],
      });
      await ended(siteId, 11, NOVEMBER);
      // A second instance: its own checker over the same database and bus.
      const other = new UsageThresholds({
        store: service.store,
        events: service.events,
        planMinutes: service.settings.planMinutes,
      });
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? service.usageThresholds : other).check(workspaceId, NOVEMBER),
        ),
      );
      expect(percents(answers.flat())).to.have.members([50, 80, 100]);
      expect(await recorded(workspaceId)).to.have.members([50, 80, 100]);
      const markers = await service.store.db
        .knex(THRESHOLDS_TABLE)
        .where({ workspace_id: workspaceId });
      expect(markers).to.have.length(3);
      const deliveries = await service.store.db
        .knex("webhook_deliveries")
        .where({ endpoint_id: endpoint.id });
      expect(deliveries.map((row: { event_type: string }) => row.event_type)).to.deep.equal([
        "usage.threshold",
        "usage.threshold",
        "usage.threshold",
      ]);
    });

    it("starts again in a new month, counting that month's minutes only", async () => {
      const { workspaceId, siteId } = await workspaceWithSite("starter");
      await ended(siteId, 10, NOVEMBER);
      expect(percents(await service.usageThresholds.check(workspaceId, NOVEMBER))).to.deep.equal([
        50, 80, 100,
      ]);
      await ended(siteId, 6, DECEMBER);
      const december = await service.usageThresholds.check(workspaceId, DECEMBER);
      expect(december.map((event) => event.data)).to.deep.equal([
        {
          workspace_id: workspaceId,
          plan: "starter",
          month: "2026-12",
          percent: 50,
          minutes_used: 6,
          minutes_included: 10,
        },
      ]);
    });

    it("records nothing for a plan without bundled minutes (enterprise)", async () => {
      const { workspaceId, siteId } = await workspaceWithSite("enterprise");
      await ended(siteId, 100_000, NOVEMBER);
      expect(await service.usageThresholds.check(workspaceId, NOVEMBER)).to.deep.equal([]);
      expect(await recorded(workspaceId)).to.deep.equal([]);
    });

    it("counts and records for each workspace alone", async () => {
      const first = await workspaceWithSite("starter");
      const second = await workspaceWithSite("starter");
      await ended(first.siteId, 5.5, NOVEMBER);
      await ended(second.siteId, 4.5, NOVEMBER);
      expect(
        percents(await service.usageThresholds.check(first.workspaceId, NOVEMBER)),
      ).to.deep.equal([50]);
      expect(await service.usageThresholds.check(second.workspaceId, NOVEMBER)).to.deep.equal([]);
      expect(await recorded(second.workspaceId)).to.deep.equal([]);
    });

    it("checks once after a burst of session ends reaches the event bus, and announces the event to subscribers", async () => {
      const { workspaceId, siteId } = await workspaceWithSite("starter");
      const checked: string[] = [];
      const check = service.usageThresholds.check;
      service.usageThresholds.check = function (this: UsageThresholds, id, at) {
        checked.push(id);
        return check.call(this, id, at);
      };
      const announced = new Promise<ServiceEvent>((resolve) => {
        const unsubscribe = service.events.subscribe((bused) => {
          if (bused.kind !== "service" || bused.event.workspace_id !== workspaceId) return;
          unsubscribe();
          resolve(bused.event);
        });
      });
      const event = await Promise.all(
        [2, 2, 2].map((minutes) =>
          service.events.recordUsage({
            site_id: siteId,
            type: "session_end",
            duration_seconds: minutes * 60,
          }),
        ),
      )
        .then(() => announced)
        .finally(() => {
          service.usageThresholds.check = check;
        });
      expect(checked).to.deep.equal([workspaceId]);
      expect(event.type).to.equal("usage.threshold");
      expect(event.data).to.deep.include({ percent: 50, minutes_used: 6, minutes_included: 10 });
      expect(await recorded(workspaceId)).to.deep.equal([50]);
    });

    it("logs a failed check, and the session end it followed is stored all the same", async () => {
      const { siteId } = await workspaceWithSite("starter");
      const failing = new UsageThresholds({
        store: service.store,
        events: service.events,
        planMinutes: service.settings.planMinutes,
      });
      failing.check = () => Promise.reject(new Error("rollups unreadable"));
      let logged: (line: Record<string, unknown>) => void = () => {};
      const failure = new Promise<Record<string, unknown>>((resolve) => (logged = resolve));
      const logger = pino(
        { level: "error" },
        { write: (line: string) => logged(JSON.parse(line)) },
      );
      const watch = new ThresholdWatch(failing, {
        events: service.events,
        store: service.store,
        logger,
        debounceMs: 1,
      });
      try {
        const end = await service.events.recordUsage({
          site_id: siteId,
          type: "session_end",
          duration_seconds: 60,
        });
        expect((await service.store.events.listUsage(siteId)).map((row) => row.id)).to.deep.equal([
          end.id,
        ]);
        const line = await failure;
        expect(line).to.include({ msg: "usage threshold check failed" });
        expect(line.err).to.include({ message: "rollups unreadable" });
      } finally {
        await watch.close();
      }
    });
  });
}
