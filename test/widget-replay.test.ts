/**
 * Signed widget writes are replay-safe, on each database: a lead, a usage event or a transcript
 * whose signed body was already accepted in that session gets the first answer again and records
 * nothing new, also when the copies arrive at the same time or at two instances. A client id in
 * the body keeps two genuine identical writes apart. Queries are reads and stay repeatable.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import type { BusEvent } from "../core/events/event-bus.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import {
  inlineSiteWithSession,
  newSession,
  signedPost,
  type WidgetSession,
} from "./helpers/widget-session.ts";

/** A site and a session on it, in a workspace of its own. */
const siteWithSession = (service: TestService) =>
  inlineSiteWithSession(service, { prefix: "replay", domain: "replay.example" });

const lead = { name: "Ana", email: "ana@example.com", message: "Call me" };
const transcript = {
  turns: [{ role: "visitor" as const, text: "Hello", at: "2026-11-23T10:00:00.000Z" }],
};
const event = { type: "function_call", function_name: "search_database" };

for (const target of databaseTargets) {
  describe(`replayed signed writes on ${target.label}`, function () {
    this.timeout(30_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    /** This test's own site, and a session on it. */
    let session: WidgetSession;
    const bus: BusEvent[] = [];
    const captured = (siteId: string) =>
      bus.filter(
        (e) =>
          e.kind === "service" && e.event.type === "lead.captured" && e.event.site_id === siteId,
      );

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      });
      service.events.subscribe((e) => bus.push(e));
    });
    beforeEach(async () => {
      session = await siteWithSession(service);
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("a lead sent twice is one lead and one lead.captured; the copy gets the first lead_id", async () => {
      const first = await signedPost(service, session, "/leads", lead);
      const again = await signedPost(service, session, "/leads", lead);
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.body.data.lead_id).to.equal(first.body.data.lead_id);
      await service.events.flush();
      expect(captured(session.siteId)).to.have.length(1);
      const leads = await service.store.leads.list(session.workspaceId, { limit: 10 });
      expect(leads).to.have.length(1);
    });

    it("ten copies of a lead at once are one lead", async () => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => signedPost(service, session, "/leads", lead)),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(Array(10).fill(201));
      expect(new Set(answers.map((a) => a.body.data.lead_id)).size).to.equal(1);
      await service.events.flush();
      expect(captured(session.siteId)).to.have.length(1);
      expect(await service.store.leads.list(session.workspaceId, { limit: 20 })).to.have.length(1);
    });

    it("two identical leads with different client ids are two leads", async () => {
      const one = await signedPost(service, session, "/leads", { ...lead, client_id: "l-1" });
      const two = await signedPost(service, session, "/leads", { ...lead, client_id: "l-2" });
      expect(one.status).to.equal(201);
      expect(two.status).to.equal(201);
      expect(two.body.data.lead_id).not.to.equal(one.body.data.lead_id);
      expect(await service.store.leads.list(session.workspaceId, { limit: 10 })).to.have.length(2);
    });

    it("the same lead in another session is a new lead", async () => {
      const other = await newSession(service, session);
      const one = await signedPost(service, session, "/leads", lead);
      const two = await signedPost(service, other, "/leads", lead);
      expect(two.body.data.lead_id).not.to.equal(one.body.data.lead_id);
    });

    it("a lead whose site is deleted meanwhile is refused, and no lead.captured is recorded", async () => {
      const row = (await service.store.sessions.get(session.session_id))!;
      await service.store.sites.delete(session.siteId);
      let refused = false;
      await service.leads
        .capture(row, lead, Buffer.from(JSON.stringify(lead)))
        .catch(() => (refused = true));
      await service.events.flush();
      expect(refused).to.equal(true);
      expect(captured(session.siteId)).to.have.length(0);
      const recorded = await service.store.events.listService(session.workspaceId);
      expect(recorded.filter((e) => e.type === "lead.captured")).to.deep.equal([]);
    });

    it("a lead with a value too long for its column is refused or stored whole, never cut", async () => {
      const row = (await service.store.sessions.get(session.session_id))!;
      const long = { ...lead, phone: "1".repeat(80) };
      let refused = false;
      await service.leads
        .capture(row, long, Buffer.from(JSON.stringify(long)))
        .catch(() => (refused = true));
      await service.events.flush();
      const stored = await service.store.leads.list(session.workspaceId, { limit: 10 });
      if (refused) {
        expect(stored).to.deep.equal([]);
        expect(captured(session.siteId)).to.have.length(0);
      } else {
        // SQLite keeps any length.
        expect(stored.map((l) => l.phone)).to.deep.equal([long.phone]);
        expect(captured(session.siteId)).to.have.length(1);
      }
    });

    it("a usage event sent twice is stored once and answers the first id", async () => {
      const first = await signedPost(service, session, "/analytics/event", event);
      const again = await signedPost(service, session, "/analytics/event", event);
      expect(again.body.data.id).to.equal(first.body.data.id);
      const stored = await service.store.events.listUsage(session.siteId);
      expect(stored.filter((e) => e.type === "function_call")).to.have.length(1);
    });

    it("two identical events with different client ids are two events", async () => {
      const withId = (id: string) => ({ ...event, metadata: { client_event_id: id } });
      const one = await signedPost(service, session, "/analytics/event", withId("e-1"));
      const two = await signedPost(service, session, "/analytics/event", withId("e-2"));
      expect(two.body.data.id).not.to.equal(one.body.data.id);
      const stored = await service.store.events.listUsage(session.siteId);
      expect(stored.filter((e) => e.type === "function_call")).to.have.length(2);
    });

    it("a client event id counts once per session, not once per site", async () => {
      const b = await newSession(service, session);
      const counted = { ...event, metadata: { client_event_id: "e-1" } };
      const one = await signedPost(service, session, "/analytics/event", counted);
      const two = await signedPost(service, b, "/analytics/event", counted);
      expect(two.body.data.id).not.to.equal(one.body.data.id);
    });

    it("a transcript sent twice is kept once", async () => {
      const first = await signedPost(service, session, "/transcript", transcript);
      const again = await signedPost(service, session, "/transcript", transcript);
      expect(first.status).to.equal(202);
      expect(again.status).to.equal(202);
      expect(again.body.data).to.deep.equal(first.body.data);
      expect(await service.store.leads.transcriptsOf(session.siteId)).to.have.length(1);
    });

    it("a transcript whose site is deleted meanwhile is refused", async () => {
      const row = (await service.store.sessions.get(session.session_id))!;
      const { site } = (await service.sites.publicSite(session.siteId))!;
      await service.store.sites.delete(session.siteId);
      let refused = false;
      await service.transcripts
        .save(row, site, transcript, Buffer.from(JSON.stringify(transcript)))
        .catch(() => (refused = true));
      expect(refused).to.equal(true);
      expect(await service.store.leads.transcriptsOf(session.siteId)).to.deep.equal([]);
    });

    it("a query sent twice is answered twice (reads stay repeatable)", async () => {
      const one = await signedPost(service, session, "/query", { collection: "items" });
      const two = await signedPost(service, session, "/query", { collection: "items" });
      expect(one.status).to.equal(200);
      expect(two.status).to.equal(200);
      expect(two.body.data).to.deep.equal(one.body.data);
    });
  });
}

describe("replayed signed writes across two instances on PostgreSQL", function () {
  this.timeout(30_000);
  const pg = databaseTargets.find((t) => t.client === "postgres")!;
  let database: TestDatabase | undefined;
  let a: TestService;
  let b: TestService;
  let session: WidgetSession;

  before(async function () {
    database = await createTestDatabase(pg);
    if (database === undefined) missing(this, pg.label);
    // One master key, so each instance opens the session's secret the other sealed.
    const env = {
      SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
    };
    a = await startTestService(database.url, env);
    b = await startTestService(database.url, env);
  });
  beforeEach(async () => {
    session = await siteWithSession(a);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  it("a lead sent to both instances at once is one lead", async () => {
    const answers = await Promise.all([
      signedPost(a, session, "/leads", lead),
      signedPost(b, session, "/leads", lead),
      signedPost(a, session, "/leads", lead),
      signedPost(b, session, "/leads", lead),
    ]);
    expect(answers.map((r) => r.status)).to.deep.equal([201, 201, 201, 201]);
    expect(new Set(answers.map((r) => r.body.data.lead_id)).size).to.equal(1);
    expect(await a.store.leads.list(session.workspaceId, { limit: 10 })).to.have.length(1);
  });
});
