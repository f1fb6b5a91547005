/**
 * The daily retention job on every database, under a fixed clock: exactly the raw usage events and
 * widget sessions older than 13 calendar months go, a bounded batch at a time, the rollups keep
 * their counts, and a second run removes nothing.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import pino from "pino";
import { applyRetention, monthsBefore } from "../core/analytics/retention-job.ts";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { newId } from "../core/store/ids.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const NOW = Date.UTC(2026, 10, 23, 3, 41);
const CUTOFF = Date.UTC(2025, 9, 23, 3, 41); // 13 months before NOW

describe("thirteen calendar months", () => {
  it("counts back by the calendar, clamping to a shorter month's end", () => {
    expect(monthsBefore(NOW, 13)).to.equal(CUTOFF);
    expect(new Date(monthsBefore(Date.UTC(2026, 2, 31, 12), 13)).toISOString()).to.equal(
      "2025-02-28T12:00:00.000Z",
    );
    expect(new Date(monthsBefore(Date.UTC(2028, 2, 31), 1)).toISOString()).to.equal(
      "2028-02-29T00:00:00.000Z",
    );
  });
});

for (const target of databaseTargets) {
  describe(`retention on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let siteId: string;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
      siteId = `keep-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(await service.workspace(), "test"), {
        site_id: siteId,
        business_name: "Retention",
        business_description: "",
        domain: `${siteId}.example`,
      });
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    const event = (createdAt: number) => usageRow(siteId, { created_at: createdAt });

    async function session(createdAt: number): Promise<string> {
      const id = newId("sess");
      await service.store.sessions.insert({
        id,
        site_id: siteId,
        workspace_id: (await service.store.sites.get(siteId))!.workspace_id,
        signing_secret: "sealed",
        user_fingerprint: "f".repeat(64),
        ip_hash: null,
        page_url: `https://${siteId}.example/?email=ada@example.com`,
        created_at: createdAt,
        last_seen_at: createdAt,
        ended_at: createdAt + 60_000,
        end_reason: "visitor",
      });
      return id;
    }

    it("deletes exactly what is past 13 months, in batches, keeping the rollups", async () => {
      const old = Array.from({ length: 25 }, (_, i) => event(CUTOFF - 1 - i * 3_600_000));
      const kept = [event(CUTOFF), event(CUTOFF + 1), event(NOW - 1)];
      await service.store.events.storeUsage([...old, ...kept]);
      const oldSessions = await Promise.all([CUTOFF - 1, CUTOFF - 86_400_000].map(session));
      const keptSessions = await Promise.all([CUTOFF, NOW - 60_000].map(session));
      const rollupsBefore = await service.store.rollups.rows(siteId, 0, NOW + 1);

      const lines: unknown[] = [];
      const logger = pino(
        { level: "info" },
        { write: (line: string) => lines.push(JSON.parse(line)) },
      );
      const removed = await applyRetention({ store: service.store, logger }, NOW, 7);
      expect(removed).to.deep.equal({ usage_events: 25, sessions: 2 });
      const left = await service.store.events.listUsage(siteId);
      expect(left.map((row) => row.id).sort()).to.deep.equal(kept.map((row) => row.id).sort());
      for (const id of oldSessions)
        expect(await service.store.sessions.get(id)).to.equal(undefined);
      for (const id of keptSessions)
        expect(await service.store.sessions.get(id)).not.to.equal(undefined);
      expect(await service.store.rollups.rows(siteId, 0, NOW + 1)).to.deep.equal(rollupsBefore);
      expect(lines).to.have.length(1);
      expect(lines[0]).to.deep.include({
        usage_events: 25,
        sessions: 2,
        before: new Date(CUTOFF).toISOString(),
      });

      const again = await applyRetention({ store: service.store, logger }, NOW, 7);
      expect(again).to.deep.equal({ usage_events: 0, sessions: 0 });
    });
  });
}
