/**
 * A controlled session's cost, on every database, under a fake clock: the usage of three
 * responses confirmed on the call's control connection becomes the session_end's `cost_cents`
 * (computed here from OpenAI's list prices, apart from the service's code) a minute after the
 * session ends, and not before; `conversation.ended` waits for it and is recorded once, with it.
 * A session without a controlled call gets its `conversation.ended` at once, without a cost; a
 * model without prices leaves the cost unknown.
 */
import { expect } from "chai";
import pino from "pino";
import { SessionCosts } from "../core/voice/session-costs.ts";
import { sessionCostsJob } from "../core/voice/session-costs-job.ts";
import { controlEnv, reportedCall, type ReportedCall } from "./helpers/controlled-calls.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import type { RealtimeUsage } from "./helpers/realtime-call.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { signedPost } from "./helpers/widget-session.ts";

/** gpt-realtime's list prices, USD per million tokens (OpenAI's pricing page). */
const USD_PER_MILLION = {
  text: 4,
  cachedText: 0.4,
  textOut: 16,
  audio: 32,
  cachedAudio: 0.4,
  audioOut: 64,
};

/** A response's usage as OpenAI reports it: cached tokens counted among the input tokens. */
function usage(
  text: number,
  audio: number,
  cachedText: number,
  cachedAudio: number,
  out: [number, number],
) {
  const reported: RealtimeUsage = {
    total_tokens: text + audio + out[0] + out[1],
    input_tokens: text + audio,
    output_tokens: out[0] + out[1],
    input_token_details: {
      text_tokens: text,
      audio_tokens: audio,
      image_tokens: 0,
      cached_tokens: cachedText + cachedAudio,
      cached_tokens_details: {
        text_tokens: cachedText,
        audio_tokens: cachedAudio,
        image_tokens: 0,
      },
    },
    output_token_details: { text_tokens: out[0], audio_tokens: out[1] },
  };
  const usd =
    ((text - cachedText) * USD_PER_MILLION.text +
      cachedText * USD_PER_MILLION.cachedText +
      (audio - cachedAudio) * USD_PER_MILLION.audio +
      cachedAudio * USD_PER_MILLION.cachedAudio +
      out[0] * USD_PER_MILLION.textOut +
      out[1] * USD_PER_MILLION.audioOut) /
    1_000_000;
  return { reported, cents: usd * 100 };
}

const RESPONSES = [
  usage(1_200, 3_000, 0, 0, [40, 900]),
  usage(1_500, 5_400, 1_024, 2_560, [25, 1_300]),
  usage(1_900, 8_100, 1_408, 5_120, [60, 2_050]),
];

for (const target of databaseTargets) {
  describe(`a controlled session's cost on ${target.label}`, function () {
    this.timeout(30_000);
    let database: TestDatabase | undefined;
    let openai: OpenAiStandin;
    let service: TestService;
    let clock = 0;
    let costs: SessionCosts;
    let reported: ReportedCall;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      openai = await startOpenAiStandin();
      service = await startTestService(database.url, controlEnv(openai));
      costs = new SessionCosts({
        store: service.store,
        events: service.events,
        prices: service.settings.voicePrices,
        logger: pino({ level: "silent" }),
        now: () => clock,
      });
    });
    after(async () => {
      await service?.stop();
      await openai?.close();
      await database?.drop();
    });

    const ended = async (sessionId: string) => {
      const rows = await service.store.db
        .knex("service_events")
        .where({ type: "conversation.ended" })
        .select("data");
      return rows
        .map((row: { data: string }) => JSON.parse(row.data) as Record<string, unknown>)
        .filter((data) => data.session_id === sessionId);
    };
    const endSession = async () => {
      const res = await signedPost(service, reported.session, "/analytics/event", {
        type: "session_end",
      });
      expect(res.status).to.equal(202);
      await service.events.flush();
      const row = await service.store.sessions.get(reported.session.session_id);
      return Number(row!.ended_at);
    };
    const sessionEnd = () => service.store.events.sessionEndOf(reported.session.session_id);

    it("writes the confirmed usage's cost a minute after the end, conversation.ended once with it, the summary too", async () => {
      reported = await reportedCall(service, openai);
      await waitUntil("the join", () => openai.sideband.openJoins(reported.call.id) === 1);
      for (const response of RESPONSES) reported.call.respond(response.reported);
      await waitUntil(
        "three responses' usage",
        async () =>
          (await service.store.db.knex("call_usage").where({ call_id: reported.call.id }))
            .length === 3,
      );
      const endedAt = await endSession();
      expect(await ended(reported.session.session_id)).to.deep.equal([]);

      clock = endedAt + 59_000;
      expect(await costs.settleDue()).to.equal(0);
      expect((await sessionEnd())!.cost_cents).to.equal(null);

      clock = endedAt + 61_000;
      expect(await sessionCostsJob.run({ sessionCosts: costs }, undefined)).to.equal(1);
      const expected = RESPONSES.reduce((sum, response) => sum + response.cents, 0);
      expect((await sessionEnd())!.cost_cents).to.be.closeTo(expected, 0.0001);
      const events = await ended(reported.session.session_id);
      expect(events).to.have.length(1);
      expect(events[0]!.cost_cents).to.be.closeTo(expected, 0.0001);
      expect(events[0]).to.deep.include({
        session_id: reported.session.session_id,
        reason: "visitor",
      });

      clock += 60_000;
      expect(await costs.settleDue()).to.equal(0);
      expect(await ended(reported.session.session_id)).to.have.length(1);

      // The site's summary counts the cost, and its session once.
      const key = await service.key(reported.session.workspaceId, { scopes: ["analytics:read"] });
      const res = await fetch(
        `${service.url}/v1/${reported.session.siteId}/analytics/summary?period=day`,
        { headers: { Authorization: `Bearer ${key}` } },
      );
      const { data } = (await res.json()) as { data: { totals: Record<string, number> } };
      expect(data.totals.sessions).to.equal(1);
      expect(data.totals.cost_cents).to.be.closeTo(expected, 0.01);
    });

    it("records conversation.ended at once, without a cost, for a session no instance controlled", async () => {
      reported = await reportedCall(service, openai);
      await waitUntil("the join", () => openai.sideband.openJoins(reported.call.id) === 1);
      // As if its provider could not control calls: no instance ever joined it.
      await service.callControl.controlled(reported.call.id)!.leave("test");
      await service.store.db
        .knex("voice_calls")
        .where({ call_id: reported.call.id })
        .update({ controlled_at: null });
      const endedAt = await endSession();
      const events = await ended(reported.session.session_id);
      expect(events).to.have.length(1);
      expect(events[0]).to.not.have.property("cost_cents");
      clock = endedAt + 120_000;
      expect(await costs.settleDue()).to.equal(0);
      expect((await sessionEnd())!.cost_cents).to.equal(null);
    });

    it("leaves the cost unknown when a model used has no prices, and still sends conversation.ended", async () => {
      reported = await reportedCall(service, openai);
      await waitUntil("the join", () => openai.sideband.openJoins(reported.call.id) === 1);
      await service.store.callUsage.record({
        id: "cus_unpriced",
        call_id: reported.call.id,
        response_id: "resp_unpriced",
        session_id: reported.session.session_id,
        model: "gpt-unpriced",
        input_text: 10,
        input_audio: 10,
        input_image: 0,
        cached_text: 0,
        cached_audio: 0,
        cached_image: 0,
        output_text: 10,
        output_audio: 10,
        created_at: Date.now(),
      });
      const endedAt = await endSession();
      clock = endedAt + 61_000;
      expect(await costs.settleDue()).to.equal(1);
      expect((await sessionEnd())!.cost_cents).to.equal(null);
      const events = await ended(reported.session.session_id);
      expect(events).to.have.length(1);
      expect(events[0]).to.not.have.property("cost_cents");
    });
  });
}
