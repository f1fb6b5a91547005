/**
 * When deliveries are tried again, on a clock moved by hand over a real store and a real HTTP
 * receiver: the retry delays are the API reference's (1 min, 5 min, 30 min, 2 h, 6 h, 12 h, each lengthened
 * by at most a tenth), the delivery is abandoned once the next would fall past 24 hours, and a
 * redirect, a 5xx, a refused connection and a receiver silent for 10 s are all failures. A 503
 * with Retry-After holds the endpoint's other deliveries back that long.
 */
import { expect } from "chai";
import { newDelivery } from "../core/webhooks/outbox.ts";
import { pruneDeliveries } from "../core/webhooks/prune-job.ts";
import { RETRY_DELAYS_MS, RETRY_JITTER } from "../core/webhooks/retry-schedule.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { webhookHarness, type Harness } from "./helpers/webhook-harness.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";

const MINUTE = 60_000;

describe("webhook retries", function () {
  this.timeout(60_000);
  let harness: Harness;
  let receiver: Receiver;

  beforeEach(async () => {
    harness = await webhookHarness();
    receiver = await startReceiver(() => ({ status: 500, body: "down" }));
  });
  afterEach(async () => {
    await harness.close();
    await receiver.close();
  });

  const endpoint = (url = receiver.url) =>
    addEndpoint(harness.store, harness.ring, {
      workspaceId: harness.workspaceId,
      url,
      events: ["lead.captured"],
    });

  /** The only delivery of the endpoint, as stored. */
  async function onlyDelivery(endpointId: string) {
    const [row] = await harness.store.webhookDeliveries.page(endpointId, { limit: 2 });
    return row!;
  }

  it("tries at the schedule's delays, then abandons the delivery within 24 hours", async () => {
    const { id } = await endpoint();
    await harness.record();
    const step = 15_000;
    const end = harness.clock.now + 25 * 60 * MINUTE;
    const attemptTimes: number[] = [];
    for (; harness.clock.now <= end; harness.clock.now += step) {
      const before = receiver.received.length;
      await harness.dispatcher.runDue();
      if (receiver.received.length > before) attemptTimes.push(harness.clock.now);
    }
    expect(attemptTimes).to.have.length(RETRY_DELAYS_MS.length + 1);
    RETRY_DELAYS_MS.forEach((delay, i) => {
      const gap = attemptTimes[i + 1]! - attemptTimes[i]!;
      expect(gap, `delay ${i + 1}`).to.be.within(delay, delay * (1 + RETRY_JITTER) + step);
    });
    const row = await onlyDelivery(id);
    expect(row.status).to.equal("abandoned");
    expect(row.attempts).to.equal(7);
    expect(row.finished_at).to.equal(attemptTimes.at(-1));
    const last = attemptTimes.at(-1)! - attemptTimes[0]!;
    expect(last).to.be.below(24 * 60 * MINUTE);
  });

  /** The one attempt of a fresh delivery to `url`, as the log has it, and the delivery after. */
  async function firstAttempt(url: string) {
    const { id } = await endpoint(url);
    await harness.record();
    await harness.dispatcher.runDue();
    const row = await onlyDelivery(id);
    const [attempt] = await harness.store.webhookDeliveries.attemptsOf([row.id]);
    return { row, attempt: attempt! };
  }

  it("counts a 500 as a failure, keeping the start of the answer", async () => {
    const { row, attempt } = await firstAttempt(receiver.url);
    expect(attempt).to.include({ status_code: 500, error: null, response_body: "down" });
    expect(row.status).to.equal("pending");
    expect(row.next_attempt_at! - harness.clock.now).to.be.within(MINUTE, MINUTE * 1.1);
  });

  it("keeps only the first 2 KB of an answer", async () => {
    receiver.answer = () => ({ status: 502, body: "é".repeat(5_000) });
    const { attempt } = await firstAttempt(receiver.url);
    expect(attempt.status_code).to.equal(502);
    expect(Buffer.byteLength(attempt.response_body!, "utf8")).to.be.at.most(2_048);
    expect(attempt.response_body!.startsWith("é".repeat(1_000))).to.equal(true);
  });

  it("counts a redirect as a failure and never follows it", async () => {
    const target = await startReceiver();
    receiver.answer = () => ({ status: 307, headers: { location: target.url } });
    try {
      const { row, attempt } = await firstAttempt(receiver.url);
      expect(attempt.status_code).to.equal(307);
      expect(attempt.error).to.equal(`redirect to ${target.url} not followed`);
      expect(row.status).to.equal("pending");
      expect(target.received).to.have.length(0);
    } finally {
      await target.close();
    }
  });

  it("counts a refused connection as a failure", async () => {
    const closed = await startReceiver();
    await closed.close();
    const { row, attempt } = await firstAttempt(closed.url);
    expect(attempt.status_code).to.equal(null);
    expect(attempt.error).to.match(/ECONNREFUSED/);
    expect(row.status).to.equal("pending");
  });

  it("counts a receiver that answers after 10 seconds as a failure", async () => {
    receiver.answer = () => ({ status: 200, delayMs: 10_500 });
    const { row, attempt } = await firstAttempt(receiver.url);
    expect(attempt).to.include({ status_code: null, error: "no answer within 10 s" });
    expect(attempt.latency_ms).to.be.at.least(10_000);
    expect(row.status).to.equal("pending");
  });

  it("holds the endpoint back for a 503's Retry-After, then sends what waited", async () => {
    const { id } = await endpoint();
    receiver.answer = (n) =>
      n === 0 ? { status: 503, headers: { "retry-after": "30" } } : { status: 200 };
    await harness.record();
    await harness.record();
    await harness.dispatcher.runDue();
    expect(receiver.received).to.have.length(1);
    harness.clock.now += 29_000;
    await harness.dispatcher.runDue();
    expect(receiver.received).to.have.length(1);
    harness.clock.now += 2_000;
    await harness.dispatcher.runDue();
    expect(receiver.received).to.have.length(2);
    const counts = await harness.store.webhookDeliveries.countByStatus(id);
    expect(counts).to.deep.equal({ pending: 1, delivered: 1, abandoned: 0 });
  });

  it("sends one endpoint's deliveries for one site in the order they were recorded", async () => {
    receiver.answer = () => ({ status: 200 });
    await endpoint();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await harness.record());
    await harness.dispatcher.runDue();
    expect(receiver.payloads().map((p) => p.id)).to.deep.equal(ids);
  });

  it("prunes: abandons what is past its window, drops finished deliveries after 30 days", async () => {
    const { id } = await endpoint();
    const now = harness.clock.now;
    const HOUR = 60 * MINUTE;
    const DAY = 24 * HOUR;
    const event = { id: "evt_x", type: "lead.captured", site_id: "shop" };
    const rows = {
      neverTried: { ...newDelivery(id, event, now - 25 * HOUR) },
      triedLongAgo: {
        ...newDelivery(id, event, now - 30 * HOUR),
        first_attempt_at: now - 25 * HOUR,
      },
      triedLately: {
        ...newDelivery(id, event, now - 30 * HOUR),
        first_attempt_at: now - 20 * HOUR,
      },
      fresh: { ...newDelivery(id, event, now - HOUR) },
      oldDone: {
        ...newDelivery(id, event, now - 40 * DAY),
        status: "delivered" as const,
        finished_at: now - 31 * DAY,
      },
      recentDone: {
        ...newDelivery(id, event, now - 40 * DAY),
        status: "abandoned" as const,
        finished_at: now - 29 * DAY,
      },
    };
    await harness.store.webhookDeliveries.insert(Object.values(rows));
    expect(await pruneDeliveries(harness.store, now)).to.deep.equal({ abandoned: 2, deleted: 1 });
    const status = async (row: { id: string }) =>
      (await harness.store.webhookDeliveries.get(row.id))?.status;
    expect(await status(rows.neverTried)).to.equal("abandoned");
    expect(await status(rows.triedLongAgo)).to.equal("abandoned");
    expect(await status(rows.triedLately)).to.equal("pending");
    expect(await status(rows.fresh)).to.equal("pending");
    expect(await status(rows.oldDone)).to.equal(undefined);
    expect(await status(rows.recentDone)).to.equal("abandoned");
  });
});
