/**
 * Sessions that go quiet: the sweeper ends them as session_end would (duration up to the last
 * signed call, `conversation.ended` once), forgets hashed IPs after an hour and drops transcripts
 * past their retention. It runs as the job `widget.sweep`, which the service schedules once a
 * minute. A clock is injected; the store is real, and new for every test.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import pino from "pino";
import { EventBus, type BusEvent } from "../core/events/event-bus.ts";
import { openJobsBackend } from "../core/jobs/backends.ts";
import { startJobs } from "../core/jobs/jobs.ts";
import { keyRing } from "../core/security/secret-box.ts";
import { migrate, openDatabase } from "../core/store/database.ts";
import type { SessionRow } from "../core/store/repos/sessions-repo.ts";
import { Store } from "../core/store/store.ts";
import { loadSettings } from "../core/settings.ts";
import { SessionService } from "../core/widget/session-service.ts";
import { sweepWidgetData, widgetSweepJob } from "../core/widget/sweeper.ts";
import { TranscriptService } from "../core/widget/transcript-service.ts";
import { UsageService } from "../core/widget/usage-service.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService } from "./helpers/test-service.ts";

const MINUTE = 60_000;
const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the session sweeper", function () {
  let database: TestDatabase | undefined;
  let store: Store;
  /** This test's clock, from the same start every time. */
  let clock: number;
  const now = () => clock;
  let events: EventBus;
  let sessions: SessionService;
  let logger: pino.Logger;
  /** One run of the sweeper over this test's store: how many sessions it ended. */
  let sweep: () => Promise<number>;
  const seen: BusEvent[] = [];
  let session: SessionRow;
  let signature: string;
  const body = Buffer.from("{}");

  // A fresh store for every test, with a session last seen at +10 minutes and a transcript kept
  // until +40 minutes.
  beforeEach(async function () {
    clock = Date.parse("2026-11-21T10:00:00.000Z");
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
    await migrate(store.db);
    await store.workspaces.insert({
      id: "ws_sweep",
      name: "Sweep",
      plan: "business",
      created_at: clock,
    });
    await store.sites.insert({
      site_id: "sweep-site",
      workspace_id: "ws_sweep",
      business_name: "Sweep",
      domain: "sweep.example",
      config: "{}",
      version: 1,
      content_hash: "h".repeat(64),
      created_at: clock,
      updated_at: clock,
    });

    logger = pino({ level: "silent" });
    const ring = keyRing(crypto.randomBytes(32));
    events = new EventBus(store, ring, { logger, now });
    sessions = new SessionService(store, ring, now);
    sweep = async () =>
      (
        await sweepWidgetData({
          sessions,
          usage: new UsageService({ events, sessions, now }),
          transcripts: new TranscriptService({ store, now }),
          logger,
        })
      ).sessions_ended;
    seen.length = 0;
    events.subscribe((e) => seen.push(e));
    const visitor = { ip: "198.51.100.7", userAgent: "Firefox" };
    const created = await sessions.create(
      { site_id: "sweep-site", workspace_id: "ws_sweep" },
      visitor,
    );
    session = created.session;
    signature = `sha256=${crypto.createHmac("sha256", created.signingSecret).update(body).digest("hex")}`;
    clock += 10 * MINUTE;
    await sessions.verify("sweep-site", session.id, signature, body); // last seen at +10 min
    await store.leads.insertTranscriptOnce({
      id: "trn_sweep",
      site_id: "sweep-site",
      session_id: session.id,
      user_fingerprint: session.user_fingerprint,
      turns: "[]",
      page_url: null,
      replay_key: "r".repeat(64),
      created_at: clock,
      expires_at: clock + 30 * MINUTE,
    });
  });
  afterEach(async () => {
    await events?.close();
    await store?.close();
    await database?.drop();
  });

  it("leaves a session open after 29 minutes quiet", async () => {
    clock += 29 * MINUTE; // 29 minutes quiet: still open
    expect(await sweep()).to.equal(0);
  });

  it("ends an idle session once, after 31 minutes quiet", async () => {
    clock += 31 * MINUTE;
    expect(await sweep()).to.equal(1);
    expect(await sweep()).to.equal(0);
  });

  it("runs as the job widget.sweep: queued, it ends the idle session", async () => {
    clock += 31 * MINUTE;
    const settings = loadSettings({ DATABASE_URL: database!.url });
    const usage = new UsageService({ events, sessions, now });
    const transcripts = new TranscriptService({ store, now });
    const parts = { settings, logger, store, sessions, usage, transcripts };
    const jobs = await startJobs(parts, [widgetSweepJob], { processEveryMs: 50 });
    try {
      await jobs.now("widget.sweep");
      const deadline = Date.now() + 5_000;
      while ((await store.sessions.get(session.id))?.ended_at === null && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await jobs.stop();
    }
    expect((await store.sessions.get(session.id))?.end_reason).to.equal("idle");
  });

  it("is scheduled by the service once a minute, one row however many instances", async () => {
    const started = Date.now();
    const services = [await startTestService(database!.url), await startTestService(database!.url)];
    try {
      const settings = loadSettings({ DATABASE_URL: database!.url });
      const { backend, close } = openJobsBackend(store.db, settings.database, logger);
      const { jobs } = await backend.repository.queryJobs({ name: "widget.sweep" });
      await close();
      expect(jobs.map((j) => [j.type, j.repeatInterval])).to.deep.equal([["single", "60000"]]);
      expect(jobs[0]?.nextRunAt?.getTime()).to.be.within(started + MINUTE, Date.now() + MINUTE);
    } finally {
      for (const service of services) await service.stop();
    }
  });

  describe("once it swept a session 31 minutes quiet", () => {
    beforeEach(async () => {
      clock += 31 * MINUTE;
      await sweep();
      await events.flush();
    });

    it("records session_end with its duration up to the last signed call", async () => {
      const [end] = (await store.events.listUsage("sweep-site")).filter(
        (e) => e.type === "session_end",
      );
      expect(end?.duration_seconds).to.equal(600);
    });

    it("puts conversation.ended on the bus once, idle, with that duration", () => {
      const ended = seen.filter(
        (e) => e.kind === "service" && e.event.type === "conversation.ended",
      );
      expect(ended).to.have.length(1);
      expect((ended[0]?.event as { data: Record<string, unknown> }).data).to.include({
        session_id: session.id,
        reason: "idle",
        duration_seconds: 600,
      });
    });

    it("marks the session ended in the store", async () => {
      expect((await store.sessions.get(session.id))?.ended_at).to.be.a("number");
    });

    it("drops a transcript past its 30 minutes of retention", async () => {
      expect(await store.leads.transcriptsOf("sweep-site")).to.deep.equal([]);
    });

    it("keeps the IP hash for an hour", async () => {
      expect((await store.sessions.get(session.id))?.ip_hash).to.be.a("string");
    });

    it("forgets the IP hash on a sweep after the hour", async () => {
      clock += 20 * MINUTE;
      await sweep();
      expect((await store.sessions.get(session.id))?.ip_hash).to.equal(null);
    });

    it("refuses the ended session's signature", async () => {
      let refused: unknown;
      await sessions
        .verify("sweep-site", session.id, signature, body)
        .catch((e: unknown) => (refused = e));
      expect(refused).to.include({ code: "invalid_signature" });
    });
  });
});
