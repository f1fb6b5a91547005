/**
 * Retention on every database, under a fixed clock. The daily job: exactly the raw usage events
 * and widget sessions older than 13 calendar months go, a bounded batch at a time, the rollups
 * keep their counts, and a second run removes nothing. The widget sweep: exactly the hashed IPs
 * older than an hour and the transcripts past their site's retention go, in bounded batches,
 * logged, and a second run removes nothing.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import pino from "pino";
import { applyRetention, monthsBefore } from "../core/analytics/retention-job.ts";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { newId } from "../core/store/ids.ts";
import { SessionService } from "../core/widget/session-service.ts";
import { sweepWidgetData } from "../core/widget/sweeper.ts";
import { TranscriptService } from "../core/widget/transcript-service.ts";
import { UsageService } from "../core/widget/usage-service.ts";
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
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

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

    async function session(createdAt: number, ipHash: string | null = null): Promise<string> {
      const id = newId("sess");
      await service.store.sessions.insert({
        id,
        site_id: siteId,
        workspace_id: (await service.store.sites.get(siteId))!.workspace_id,
        signing_secret: "sealed",
        user_fingerprint: "f".repeat(64),
        ip_hash: ipHash,
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
      const oldSessions = await Promise.all(
        [CUTOFF - 1, CUTOFF - 86_400_000].map((at) => session(at)),
      );
      const keptSessions = await Promise.all([CUTOFF, NOW - 60_000].map((at) => session(at)));
      const serviceEvent = async (createdAt: number) => {
        const id = newId("evt");
        await service.store.events.insertService([
          {
            id,
            type: "lead.captured",
            workspace_id: (await service.store.sites.get(siteId))!.workspace_id,
            site_id: siteId,
            data: JSON.stringify({ lead: { email: "ada@example.com" } }),
            created_at: createdAt,
          },
        ]);
        return id;
      };
      const oldEvents = await Promise.all([CUTOFF - 1, CUTOFF - 2, CUTOFF - 3].map(serviceEvent));
      const keptEvents = await Promise.all([CUTOFF, NOW - 1].map(serviceEvent));
      const rollupsBefore = await service.store.rollups.rows(siteId, 0, NOW + 1);

      const lines: unknown[] = [];
      const logger = pino(
        { level: "info" },
        { write: (line: string) => lines.push(JSON.parse(line)) },
      );
      const removed = await applyRetention({ store: service.store, logger }, NOW, 7);
      expect(removed).to.deep.equal({
        usage_events: 25,
        sessions: 2,
        service_events: 3,
        deleted_sites: 0,
      });
      for (const id of oldEvents) {
        expect(await service.store.events.serviceEvent(id)).to.equal(undefined);
      }
      for (const id of keptEvents) {
        expect(await service.store.events.serviceEvent(id)).not.to.equal(undefined);
      }
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
        service_events: 3,
        before: new Date(CUTOFF).toISOString(),
      });

      const again = await applyRetention({ store: service.store, logger }, NOW, 7);
      expect(again).to.deep.equal({
        usage_events: 0,
        sessions: 0,
        service_events: 0,
        deleted_sites: 0,
      });
    });

    it("clears exactly the hashed IPs past an hour and the transcripts past retention, in batches", async () => {
      const hash = "a".repeat(64);
      const cleared = await Promise.all(
        Array.from({ length: 10 }, (_, i) => session(NOW - HOUR - 1 - i * MINUTE, hash)),
      );
      const hashed = await Promise.all([NOW - HOUR, NOW - 1].map((at) => session(at, hash)));
      const transcriptSession = await session(NOW - 2 * HOUR);
      const transcript = async (expiresAt: number) => {
        const id = newId("trn");
        await service.store.leads.insertTranscriptOnce({
          id,
          site_id: siteId,
          session_id: transcriptSession,
          user_fingerprint: "f".repeat(64),
          turns: "[]",
          page_url: null,
          replay_key: crypto.randomBytes(32).toString("hex"),
          created_at: expiresAt - 30 * 24 * HOUR,
          expires_at: expiresAt,
        });
        return id;
      };
      const expired = await Promise.all(
        Array.from({ length: 10 }, (_, i) => transcript(NOW - i * MINUTE)),
      );
      const current = await Promise.all([NOW + 1, NOW + 24 * HOUR].map(transcript));

      // Each batch the repositories are asked for, and what it changed.
      const batches: Array<[string, number, number]> = [];
      const watch = <T extends object>(repo: T, method: keyof T & string) => {
        const original = (repo[method] as (...args: number[]) => Promise<number>).bind(repo);
        (repo[method] as unknown) = async (...args: number[]) => {
          const changed = await original(...args);
          batches.push([method, args.at(-1)!, changed]);
          return changed;
        };
        return () => void ((repo[method] as unknown) = original);
      };
      const unwatch = [
        watch(service.store.sessions, "forgetIps"),
        watch(service.store.leads, "deleteExpiredTranscripts"),
      ];
      const lines: Record<string, unknown>[] = [];
      const logger = pino(
        { level: "info" },
        { write: (line: string) => lines.push(JSON.parse(line)) },
      );
      const now = () => NOW;
      const sessions = new SessionService(service.store, service.ring, now);
      const sweep = () =>
        sweepWidgetData(
          {
            sessions,
            usage: new UsageService({ events: service.events, sessions, now }),
            transcripts: new TranscriptService({ store: service.store, now }),
            logger,
          },
          3,
        );
      try {
        expect(await sweep()).to.deep.equal({
          sessions_ended: 0,
          ip_hashes_cleared: 10,
          transcripts_deleted: 10,
        });
      } finally {
        for (const restore of unwatch) restore();
      }
      expect(batches.map(([method, limit, changed]) => [method, limit, changed])).to.deep.equal([
        ["forgetIps", 3, 3],
        ["forgetIps", 3, 3],
        ["forgetIps", 3, 3],
        ["forgetIps", 3, 1],
        ["deleteExpiredTranscripts", 3, 3],
        ["deleteExpiredTranscripts", 3, 3],
        ["deleteExpiredTranscripts", 3, 3],
        ["deleteExpiredTranscripts", 3, 1],
      ]);
      for (const id of cleared)
        expect((await service.store.sessions.get(id))!.ip_hash).to.equal(null);
      for (const id of hashed)
        expect((await service.store.sessions.get(id))!.ip_hash).to.equal(hash);
      const left = (await service.store.leads.transcriptsOf(siteId)).map((row) => row.id);
      expect(left.sort()).to.deep.equal([...current].sort());
      expect(expired.some((id) => left.includes(id))).to.equal(false);
      expect(lines).to.have.length(1);
      expect(lines[0]).to.deep.include({ ip_hashes_cleared: 10, transcripts_deleted: 10 });

      expect(await sweep()).to.deep.equal({
        sessions_ended: 0,
        ip_hashes_cleared: 0,
        transcripts_deleted: 0,
      });
      expect(lines).to.have.length(1);
    });

    it("finishes removing the usage of a site deleted while an instance crashed, and only its", async () => {
      // As a crash between the deletion's commit and the removal of its data leaves it.
      const gone = `gone-${crypto.randomBytes(4).toString("hex")}`;
      // More events and quarter hours than a batch of 7 holds.
      await service.store.events.storeUsage(
        Array.from({ length: 20 }, (_, i) => usageRow(gone, { created_at: NOW - 1 - i * HOUR })),
      );
      await service.store.deletedSites.mark(gone, "ws_gone", NOW - HOUR);
      const keptEvents = (await service.store.events.listUsage(siteId)).length;
      expect(keptEvents).to.be.greaterThan(0);
      const logger = pino({ level: "silent" });

      const removed = await applyRetention({ store: service.store, logger }, NOW, 7);
      expect(removed.deleted_sites).to.equal(1);
      expect(await service.store.events.listUsage(gone)).to.deep.equal([]);
      expect(await service.store.rollups.rows(gone, 0, NOW + 1)).to.deep.equal([]);
      expect(await service.store.deletedSites.has(gone)).to.equal(false);
      expect(await service.store.events.listUsage(siteId)).to.have.length(keptEvents);
      expect(
        (await applyRetention({ store: service.store, logger }, NOW, 7)).deleted_sites,
      ).to.equal(0);
    });
  });
}
