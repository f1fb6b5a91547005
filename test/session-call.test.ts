/**
 * `POST /v1/:siteId/session/call` on every database: the widget reports the provider's call id,
 * signed by its session; the service keeps it with the session, a call belongs to the session
 * that reported it first, and everything a signed endpoint refuses, this refuses, in the
 * envelope.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
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

const callId = () => `rtc_${crypto.randomBytes(16).toString("hex")}`;

for (const target of databaseTargets) {
  describe(`call reports on ${target.label}`, function () {
    this.timeout(30_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let session: WidgetSession;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_JOBS: "off",
        SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      });
      session = await inlineSiteWithSession(service, { prefix: "call", domain: "call.example" });
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    const report = (from: WidgetSession, id: unknown) =>
      signedPost(service, from, "/session/call", { call_id: id });
    const calls = (sessionId: string) => service.store.voiceCalls.ofSession(sessionId);

    it("keeps the call with the session and answers 202 {session_id}", async () => {
      const id = callId();
      const res = await report(session, id);
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      expect(res.body.data).to.deep.equal({ session_id: session.session_id });
      const [stored] = await calls(session.session_id);
      expect(stored).to.deep.include({
        call_id: id,
        session_id: session.session_id,
        site_id: session.siteId,
        ended_at: null,
      });
    });

    it("leaves the call alone when the provider cannot control it (no OpenAI key here)", async () => {
      const fresh = await newSession(service, session);
      const id = callId();
      expect((await report(fresh, id)).status).to.equal(202);
      // The join is tried after the answer (joining again waits for that one): it gives up.
      expect(await service.callControl.join((await service.store.voiceCalls.get(id))!)).to.equal(
        false,
      );
      const stored = await service.store.voiceCalls.get(id);
      expect(stored).to.deep.include({ controller: null, lease_until: null, controlled_at: null });
      expect(service.callControl.controlled(id)).to.equal(undefined);
    });

    it("answers the same report again as the first, keeping one call", async () => {
      const fresh = await newSession(service, session);
      const id = callId();
      expect((await report(fresh, id)).status).to.equal(202);
      const again = await report(fresh, id);
      expect(again.status).to.equal(202);
      expect(again.body.data).to.deep.equal({ session_id: fresh.session_id });
      expect((await calls(fresh.session_id)).map((call) => call.call_id)).to.deep.equal([id]);
    });

    it("keeps each call of a session that resumed (a new call each time)", async () => {
      const fresh = await newSession(service, session);
      const first = callId();
      const second = callId();
      expect((await report(fresh, first)).status).to.equal(202);
      expect((await report(fresh, second)).status).to.equal(202);
      const ids = (await calls(fresh.session_id)).map((call) => call.call_id);
      expect(ids.sort()).to.deep.equal([first, second].sort());
    });

    it("refuses with 409 a call another session reported, leaving it that session's", async () => {
      const id = callId();
      expect((await report(session, id)).status).to.equal(202);
      const other = await newSession(service, session);
      const res = await report(other, id);
      expect(res.status).to.equal(409);
      expect(res.body.error).to.deep.include({ code: "conflict" });
      expect(res.body.error.details).to.deep.equal({ field: "call_id" });
      expect((await service.store.voiceCalls.get(id))!.session_id).to.equal(session.session_id);
      expect(await calls(other.session_id)).to.deep.equal([]);
    });

    it("refuses a call id of another site's session (403 from its origin, 401 from this one)", async () => {
      const other = await inlineSiteWithSession(service, {
        prefix: "call-other",
        domain: "call-other.example",
      });
      // The other site's session signing for this site: this site's origin, the other's session.
      const res = await report(
        { ...other, siteId: session.siteId, origin: session.origin },
        callId(),
      );
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal("invalid_signature");
      const foreignOrigin = await report({ ...session, origin: other.origin }, callId());
      expect(foreignOrigin.status).to.equal(403);
      expect(foreignOrigin.body.error.code).to.equal("origin_not_allowed");
    });

    describe("refuses a body that is not {call_id}, naming the field, storing nothing", () => {
      const cases: Array<[string, unknown, string]> = [
        ["no call_id", {}, "call_id"],
        ["an empty call_id", { call_id: "" }, "call_id"],
        ["a call_id with a slash", { call_id: "rtc_1/../x" }, "call_id"],
        ["a call_id of 201 characters", { call_id: "a".repeat(201) }, "call_id"],
        ["a number", { call_id: 42 }, "call_id"],
        ["another field", { call_id: "rtc_ok", extra: true }, "extra"],
        ["an array", [], ""],
      ];
      for (const [what, body, field] of cases) {
        it(what, async () => {
          const fresh = await newSession(service, session);
          const res = await signedPost(service, fresh, "/session/call", body);
          expect(res.status, JSON.stringify(res.body)).to.equal(400);
          expect(res.body.error.code).to.equal("invalid_request");
          if (field !== "") expect(res.body.error.details.field).to.equal(field);
          expect(await calls(fresh.session_id)).to.deep.equal([]);
        });
      }
    });

    it("refuses an unsigned report, and a wrong signature", async () => {
      const unsigned = await request(service.server)
        .post(`/v1/${session.siteId}/session/call`)
        .set("Origin", session.origin)
        .set("Content-Type", "application/json")
        .send(JSON.stringify({ call_id: callId() }));
      expect(unsigned.status).to.equal(401);
      expect(unsigned.body.error.code).to.equal("invalid_signature");
      const wrong = await report({ ...session, signing_secret: "0".repeat(64) }, callId());
      expect(wrong.status).to.equal(401);
    });

    it("refuses a report for an unknown site with 404 site_not_found", async () => {
      const res = await report({ ...session, siteId: "no-such-site" }, callId());
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal("site_not_found");
    });

    it("refuses a report from a session that ended", async () => {
      const fresh = await newSession(service, session);
      await service.store.sessions.end(fresh.session_id, Date.now(), "visitor");
      service.sessions.forget(fresh.session_id);
      const res = await report(fresh, callId());
      expect(res.status).to.equal(401);
      expect(await calls(fresh.session_id)).to.deep.equal([]);
    });
  });
}
