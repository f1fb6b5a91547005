/**
 * A callback request is the visitor's data like any lead, on every database: an export holds its
 * source, reason and turns; an erasure empties the reason and the turns, in the lead and in the
 * stored `lead.captured`.
 */
import { expect } from "chai";
import request from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { inlineSiteWithSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";

type Row = Record<string, unknown>;

/** Words only this test's callback holds, which no redaction of patterns would catch. */
const SAID = "the blue teapot with the chipped spout";
const REASON = `Wants to return ${SAID}`;
const TURNS = [{ role: "visitor", text: `I bought ${SAID}`, at: "2026-11-21T10:04:05.123Z" }];

for (const target of databaseTargets) {
  describe(`a callback request in visitor data on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let session: WidgetSession;
    let auth: { Authorization: string };
    let fingerprint: string;
    let leadId: string;

    async function done(kind: "export" | "delete"): Promise<Row> {
      const asked = await request(service.server)
        .post(`/v1/user-data/${kind}`)
        .set(auth)
        .send({ site_id: session.siteId, user_fingerprint: fingerprint });
      expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
      let answer: Row = {};
      await waitUntil(`the ${kind} done`, async () => {
        const res = await request(service.server)
          .get(`/v1/user-data/requests/${asked.body.data.request_id}`)
          .set(auth);
        answer = res.body.data as Row;
        return answer.status === "done" || answer.status === "failed";
      });
      expect(answer.status).to.equal("done");
      return answer;
    }

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
        // The data requests run as jobs: looked for often, not every 5 seconds.
        SITEVOICE_JOBS_POLL_MS: "200",
      });
    });
    beforeEach(async () => {
      session = await inlineSiteWithSession(service, {
        prefix: "callback-data",
        domain: "callback-data.example",
      });
      auth = { Authorization: `Bearer ${await service.key(session.workspaceId)}` };
      const res = await signedPost(service, session, "/leads", {
        source: "callback",
        name: "Ana Silva",
        email: "ana@example.com",
        reason: REASON,
        turns: TURNS,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      leadId = res.body.data.lead_id as string;
      fingerprint = (await service.store.leads.get(leadId))!.user_fingerprint!;
      await service.events.flush();
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("an export holds the callback's source, reason and turns", async () => {
      const exported = await done("export");
      const link = new URL(exported.download_url as string);
      const res = await request(service.server)
        .get(link.pathname + link.search)
        .expect(200);
      const [lead] = (JSON.parse(res.text) as { leads: Row[] }).leads;
      expect(lead).to.include({ id: leadId, source: "callback", reason: REASON });
      expect(lead?.turns).to.deep.equal(TURNS);
    });

    it("an erasure empties the lead's reason and turns", async () => {
      await done("delete");
      const row = await service.store.leads.get(leadId);
      expect(row).to.include({ reason: null, turns: null, source: "callback" });
    });

    it("an erasure leaves nothing of the reason or the turns in the stored lead.captured", async () => {
      await done("delete");
      const events = await service.store.db
        .knex("service_events")
        .where({ site_id: session.siteId, type: "lead.captured" });
      expect(events).to.have.length(1);
      expect(events[0].data).to.not.contain("teapot");
    });
  });
}
