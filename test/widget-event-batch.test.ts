/**
 * The batch form of the signed usage-event endpoint, on each database: `{events: [...]}` (1 to
 * 100 events) answers 202 `{ids}` in order; each event counts once however often the same bytes
 * arrive, keyed by the batch's bytes and its index or by its own client id; a bad batch is refused
 * whole; each event costs one point of the 600 per minute; the signature covers the exact bytes.
 */
import { expect } from "chai";
import request from "supertest";
import type { UsageEventRow } from "../core/store/repos/events-repo.ts";
import { errors } from "../core/errors.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { inlineSiteWithSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";
import { signBody } from "./helpers/widget-signature.ts";

const call = (name: string) => ({ type: "function_call", function_name: name });
const withId = (event: object, id: string) => ({ ...event, metadata: { client_event_id: id } });
/** `n` identical events; batches of other tags are other bytes. */
const many = (n: number, tag = 0) => ({
  events: Array.from({ length: n }, () => ({ ...call("search_database"), metadata: { tag } })),
});

for (const target of databaseTargets) {
  describe(`usage event batches on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let session: WidgetSession;

    /** The body as given (a string is sent as is), signed by the session unless told otherwise. */
    const post = async (body: unknown, signedAs?: string) => {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      return request(service.server)
        .post(`/v1/${session.siteId}/analytics/event`)
        .set("Origin", session.origin)
        .set("Content-Type", "application/json")
        .set("X-Service-Session", session.session_id)
        .set("X-Service-Signature", await signBody(session.signing_secret, signedAs ?? text))
        .send(text);
    };
    /** The session's stored usage events, by id. */
    const stored = async () => {
      await service.events.flush();
      const rows = await service.store.events.listUsage(session.siteId);
      return new Map(rows.filter((r) => r.session_id === session.session_id).map((r) => [r.id, r]));
    };
    const ids = (res: request.Response) => res.body.data.ids as string[];

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      });
    });
    beforeEach(async () => {
      session = await inlineSiteWithSession(service, { prefix: "batch", domain: "batch.example" });
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("stores each event of a batch and answers 202 with their ids in order", async () => {
      const events = [
        call("search_database"),
        { type: "image_description", metadata: { width: 640 } },
        call("scroll_to"),
        { type: "db_query" },
      ];
      const res = await post({ events });
      expect(res.status).to.equal(202);
      expect(res.body.success).to.equal(true);
      expect(ids(res)).to.have.length(4);
      expect(new Set(ids(res)).size).to.equal(4);
      const rows = await stored();
      expect(rows.size).to.equal(4);
      const got = ids(res).map((id) => rows.get(id) as UsageEventRow);
      expect(got.map((r) => [r.type, r.function_name])).to.deep.equal([
        ["function_call", "search_database"],
        ["image_description", null],
        ["function_call", "scroll_to"],
        ["db_query", null],
      ]);
      expect(got.every((r) => r.site_id === session.siteId)).to.equal(true);
      expect(JSON.parse(got[1]!.metadata!)).to.deep.equal({ width: 640 });
    });

    it("writes the events of a batch together: one flush of the event bus stores them all", async () => {
      const bus = service.events;
      const flush = bus.flush.bind(bus);
      let flushes = 0;
      bus.flush = () => (flushes++, flush());
      try {
        expect((await post(many(100))).status).to.equal(202);
      } finally {
        bus.flush = flush;
      }
      expect(flushes).to.equal(1);
      expect((await stored()).size).to.equal(100);
    });

    it("the same batch sent twice stores each event once and answers the same ids", async () => {
      // Identical events within a batch are told apart by their place in it.
      const batch = many(3);
      const first = await post(batch);
      const again = await post(batch);
      expect(again.status).to.equal(202);
      expect(ids(again)).to.deep.equal(ids(first));
      expect(new Set(ids(first)).size).to.equal(3);
      expect((await stored()).size).to.equal(3);
    });

    it("batches with identical events but other bytes are other events, and never a single event's", async () => {
      const event = call("search_database");
      const a = await post({ events: [withId(event, "a")] });
      const b = await post({ events: [withId(event, "b")] });
      const c = await post({ events: [event] });
      const d = await post(`{"events": [${JSON.stringify(event)}]}`);
      const single = await post(event);
      const all = [...ids(a), ...ids(b), ...ids(c), ...ids(d), single.body.data.id as string];
      expect(new Set(all).size).to.equal(5);
      expect((await stored()).size).to.equal(5);
    });

    it("an event's metadata.client_event_id is its key, in a batch as alone", async () => {
      const event = withId(call("search_database"), "c-1");
      const first = await post({ events: [event, call("scroll_to")] });
      // Other bytes, the same client id: the same event.
      const other = await post({ events: [call("scroll_to"), event, event] });
      const single = await post(event);
      expect(ids(other)[1]).to.equal(ids(first)[0]);
      expect(ids(other)[2]).to.equal(ids(first)[0]);
      expect(single.body.data.id).to.equal(ids(first)[0]);
      const rows = await stored();
      expect(rows.size).to.equal(3);
      expect(JSON.parse(rows.get(ids(first)[0]!)!.metadata!)).to.deep.equal({});
    });

    it("session_start and session_end count once per session, and session_end ends it", async () => {
      const start = { type: "session_start" };
      const res = await post({ events: [start, call("x"), start, { type: "session_end" }] });
      expect(res.status).to.equal(202);
      expect(ids(res)[2]).to.equal(ids(res)[0]);
      const rows = [...(await stored()).values()];
      expect(rows.map((r) => r.type).sort()).to.deep.equal([
        "function_call",
        "session_end",
        "session_start",
      ]);
      const ended = await service.store.sessions.get(session.session_id);
      expect(ended?.ended_at).to.not.equal(null);
      expect((await post({ events: [{ type: "session_end" }] })).status).to.equal(401);
    });

    it("a failed write fails the batch with 503; the same bytes again store each event once", async () => {
      const bus = service.events;
      const recordUsage = bus.recordUsage.bind(bus);
      let calls = 0;
      bus.recordUsage = (input) =>
        ++calls === 2 ? Promise.reject(errors.serviceUnavailable("test")) : recordUsage(input);
      const batch = many(3);
      try {
        const failed = await post(batch);
        expect(failed.status).to.equal(503);
        expect(failed.body.error.code).to.equal("service_unavailable");
      } finally {
        bus.recordUsage = recordUsage;
      }
      const before = [...(await stored()).keys()];
      expect(before).to.have.length(2);
      const retry = await post(batch);
      expect(retry.status).to.equal(202);
      expect(ids(retry)).to.include.members(before);
      expect((await stored()).size).to.equal(3);
    });

    const refusals: [string, unknown, string][] = [
      ["no events", { events: [] }, "events"],
      ["101 events", many(101), "events"],
      ["events that are not an array", { events: call("x") }, "events"],
      [
        "an invalid event at index 3",
        { events: [...many(3).events, { type: "x" }] },
        "events.3.type",
      ],
      [
        "a function_call without its name",
        { events: [{ type: "function_call" }] },
        "events.0.function_name",
      ],
      ["an extra top-level property", { ...many(1), note: "hi" }, "note"],
      ["events beside a single event's type", { ...many(1), type: "db_query" }, "type"],
    ];
    for (const [what, body, field] of refusals) {
      it(`refuses ${what} with 400 naming ${field}, and stores nothing`, async () => {
        const res = await post(body);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
        expect(res.body.error.details.field).to.equal(field);
        expect((await stored()).size).to.equal(0);
      });
    }

    it("a tampered batch is 401 invalid_signature, and nothing is stored", async () => {
      const signed = JSON.stringify(many(2));
      const res = await post(signed.replace("search_database", "search_databasf"), signed);
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal("invalid_signature");
      expect((await stored()).size).to.equal(0);
    });

    it("counts one rate-limit point per event", async () => {
      const batch = await post(many(50));
      expect(batch.headers["ratelimit-limit"]).to.equal("600");
      expect(batch.headers["ratelimit-remaining"]).to.equal("550");
      const single = await signedPost(service, session, "/analytics/event", call("x"));
      expect(single.headers["ratelimit-remaining"]).to.equal("549");
    });

    it("refuses whole, with 429, a batch larger than what is left; what is left stays usable", async () => {
      for (let i = 1; i <= 5; i++) expect((await post(many(100, i))).status).to.equal(202);
      expect((await post(many(60, 6))).headers["ratelimit-remaining"]).to.equal("40");
      const over = await post(many(41));
      expect(over.status).to.equal(429);
      expect(over.body.error.code).to.equal("rate_limited");
      expect(Number(over.headers["retry-after"])).to.be.at.least(1);
      expect((await stored()).size).to.equal(560);
      const rest = await post(many(40));
      expect(rest.status).to.equal(202);
      expect(rest.headers["ratelimit-remaining"]).to.equal("0");
      expect((await signedPost(service, session, "/analytics/event", call("x"))).status).to.equal(
        429,
      );
      expect((await stored()).size).to.equal(600);
    });
  });
}
