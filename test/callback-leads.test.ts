/**
 * Callback requests (`POST /v1/:siteId/leads` with `source: "callback"`) on every database: the
 * lead with its reason and the conversation's turns so far, as GET /v1/leads answers it and as
 * `lead.captured` announces it (`data.callback: true`), and each refused input.
 */
import { expect } from "chai";
import request from "supertest";
import type { BusEvent, ServiceEvent } from "../core/events/event-bus.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { inlineSiteWithSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";

const AT = "2026-11-21T10:04:05.123Z";
const TURNS = [
  { role: "visitor", text: "Can I talk to a person?", at: AT },
  { role: "function", name: "search_site", at: AT },
  { role: "assistant", text: "I can ask someone to call you back.", at: AT },
];
const CALLBACK = {
  source: "callback",
  name: "Ana Silva",
  phone: "+1 503 555 0100",
  reason: "Wants to talk about a refund",
  turns: TURNS,
  client_id: "w-1",
};

for (const target of databaseTargets) {
  describe(`callback requests on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let session: WidgetSession;
    const bus: BusEvent[] = [];

    const captured = (): ServiceEvent[] =>
      bus.flatMap((e) =>
        e.kind === "service" &&
        e.event.type === "lead.captured" &&
        e.event.site_id === session.siteId
          ? [e.event]
          : [],
      );

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_JOBS: "off",
        SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      });
      service.events.subscribe((event) => bus.push(event));
    });
    beforeEach(async () => {
      session = await inlineSiteWithSession(service, {
        prefix: "callback",
        domain: "callback.example",
      });
      bus.length = 0;
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    async function post(body: object, status: number) {
      const res = await signedPost(service, session, "/leads", body);
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      return res;
    }

    async function listed() {
      const key = await service.key(session.workspaceId, { scopes: ["sites:read"] });
      const res = await request(service.server)
        .get(`/v1/leads?site_id=${session.siteId}`)
        .set("Authorization", `Bearer ${key}`)
        .expect(200);
      return res.body.data as Record<string, unknown>[];
    }

    it("stores a callback request with its reason and turns, as GET /v1/leads shows", async () => {
      const res = await post(CALLBACK, 201);
      const [lead] = await listed();
      expect(lead).to.include({
        id: res.body.data.lead_id,
        source: "callback",
        reason: "Wants to talk about a refund",
      });
      expect(lead?.turns).to.deep.equal(TURNS);
    });

    it("a lead without a source is the widget's, with no reason and no turns", async () => {
      await post({ email: "ana@example.com" }, 201);
      const [lead] = await listed();
      expect(lead).to.include({ source: "widget", reason: null });
      expect(lead?.turns).to.deep.equal([]);
    });

    it("lead.captured carries callback: true and the reason", async () => {
      await post(CALLBACK, 201);
      await service.events.flush();
      const [event] = captured();
      expect(event?.data).to.include({ callback: true, reason: "Wants to talk about a refund" });
      expect(event?.data.lead).to.include({ source: "callback" });
    });

    it("lead.captured of a widget lead carries callback: false", async () => {
      await post({ email: "ana@example.com" }, 201);
      await service.events.flush();
      expect(captured()[0]?.data).to.include({ callback: false });
    });

    async function refused(body: object, field: string) {
      const res = await post(body, 400);
      expect(res.body.error.code).to.equal("invalid_request");
      expect(res.body.error.details.field).to.equal(field);
      expect(await listed()).to.deep.equal([]);
    }

    it("400 for a callback with neither email nor phone", async () => {
      const { phone: _phone, ...noContact } = CALLBACK;
      const res = await post(noContact, 400);
      expect(res.body.error.code).to.equal("invalid_request");
      expect(await listed()).to.deep.equal([]);
    });

    it("400 for a callback without a reason", async () => {
      const { reason: _reason, ...noReason } = CALLBACK;
      await refused(noReason, "reason");
    });

    it("400 for a reason over 200 characters", async () => {
      await refused({ ...CALLBACK, reason: "x".repeat(201) }, "reason");
    });

    it("400 for a reason of more than one line", async () => {
      await refused({ ...CALLBACK, reason: "Refund\nnow" }, "reason");
    });

    it("400 for more than 30 turns", async () => {
      await refused({ ...CALLBACK, turns: Array.from({ length: 31 }, () => TURNS[0]) }, "turns");
    });

    it("400 for a turn's text over 600 characters", async () => {
      await refused(
        { ...CALLBACK, turns: [{ role: "visitor", text: "x".repeat(601), at: AT }] },
        "turns.0.text",
      );
    });

    it("400 for a turn with a function's arguments", async () => {
      await refused(
        { ...CALLBACK, turns: [{ role: "function", name: "f", arguments: {}, at: AT }] },
        "turns.0.arguments",
      );
    });

    it("400 for a source other than widget or callback", async () => {
      await refused({ ...CALLBACK, source: "phone" }, "source");
    });

    it("400 for turns on a lead that is not a callback", async () => {
      await refused({ email: "ana@example.com", turns: TURNS }, "turns");
    });
  });
}
