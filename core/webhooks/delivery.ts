/**
 * One delivery, leased by the dispatcher: checked (endpoint enabled and not paused, still within
 * its 24 hours, its event still stored), spaced by the endpoint's rate limit, signed, sent, and
 * recorded with its outcome in one transaction: the attempt in the log, the delivery's next
 * attempt (retry-schedule.ts) or its end, and the endpoint's run of failures, which may disable it
 * (endpoint-health.ts).
 */
import type { Logger } from "pino";
import { openServiceEvent } from "../events/event-bus.ts";
import type { GuardedRequest } from "../security/guarded-request.ts";
import { open, type KeyRing } from "../security/secret-box.ts";
import { newId } from "../store/ids.ts";
import type { ServiceEventRow } from "../store/repos/events-repo.ts";
import type {
  AttemptOutcome,
  AttemptRow,
  DeliveryRow,
} from "../store/repos/webhook-deliveries-repo.ts";
import type { WebhookEndpointRow } from "../store/repos/webhook-endpoints-repo.ts";
import type { Store } from "../store/store.ts";
import type { DeliveryRate } from "./delivery-rate.ts";
import { recordHealth, type EndpointNotice } from "./endpoint-health.ts";
import { nextAttemptAt, RETRY_WINDOW_MS } from "./retry-schedule.ts";
import { DELIVERY_TIMEOUT_MS, sendAttempt, type AttemptResult } from "./send-attempt.ts";
import { signatureHeaders } from "./webhook-signatures.ts";

/** What became of a leased delivery: sent, ended or given back unsent, or its queue must wait. */
export type DeliverOutcome = "attempted" | "skipped" | "stop";

export interface DeliveryParts {
  store: Store;
  ring: KeyRing;
  request: GuardedRequest;
  rate: DeliveryRate;
  notice: EndpointNotice;
  logger: Logger;
  now?: () => number;
  random?: () => number;
  timeoutMs?: number;
  userAgent?: string;
}

/** The body every attempt of a delivery of `event` posts (the API reference, "Payload shape"). */
export function deliveryBody(event: ServiceEventRow, ring: KeyRing): Buffer {
  const opened = openServiceEvent(event, ring);
  return Buffer.from(
    JSON.stringify({
      id: opened.id,
      type: opened.type,
      created_at: opened.created_at,
      site_id: opened.site_id ?? null,
      data: opened.data,
    }),
    "utf8",
  );
}

/** The secrets that sign now, newest first. */
export function signingSecrets(endpoint: WebhookEndpointRow, ring: KeyRing, now: number): string[] {
  const secrets = [open(ring, endpoint.secret)];
  const until = endpoint.previous_secret_until;
  if (endpoint.previous_secret !== null && until !== null && until > now) {
    secrets.push(open(ring, endpoint.previous_secret));
  }
  return secrets;
}

export class Delivery {
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly parts: DeliveryParts) {
    this.now = parts.now ?? Date.now;
    this.random = parts.random ?? Math.random;
  }

  /** Sends `row`, leased by `owner` until `leaseUntil`, once, and records what happened. */
  async deliver(row: DeliveryRow, owner: string, leaseUntil: number): Promise<DeliverOutcome> {
    const { store } = this.parts;
    const deliveries = store.webhookDeliveries;
    const endpoint = await store.webhookEndpoints.get(row.endpoint_id);
    if (endpoint === undefined || !endpoint.enabled) {
      await deliveries.release(row.id, owner);
      return "stop";
    }
    if (endpoint.paused_until !== null && endpoint.paused_until > this.now()) {
      await deliveries.release(row.id, owner);
      return "stop";
    }
    if (this.now() - (row.first_attempt_at ?? row.created_at) > RETRY_WINDOW_MS) {
      await deliveries.abandon(row.id, this.now());
      return "skipped";
    }
    const event = await store.events.serviceEvent(row.event_id);
    if (event === undefined) {
      this.parts.logger.warn({ delivery_id: row.id }, "webhook delivery abandoned: event gone");
      await deliveries.abandon(row.id, this.now());
      return "skipped";
    }
    if (!(await this.waitForRate(endpoint.id, leaseUntil))) {
      await deliveries.release(row.id, owner);
      return "stop";
    }
    const attemptedAt = this.now();
    const body = deliveryBody(event, this.parts.ring);
    const headers = {
      ...signatureHeaders({
        secrets: signingSecrets(endpoint, this.parts.ring, attemptedAt),
        eventId: event.id,
        timestampMs: attemptedAt,
        body,
      }),
      "X-Service-Event": event.type,
      "X-Service-Delivery": row.id,
      "User-Agent": this.parts.userAgent ?? "Sitevoice-Webhooks",
    };
    const result = await sendAttempt(this.parts.request, endpoint.url, body, headers, {
      timeoutMs: this.parts.timeoutMs,
      now: this.now,
    });
    await this.record(row, endpoint, owner, attemptedAt, result);
    return "attempted";
  }

  /** Waits for a send slot of the endpoint; false when it would come after the lease ends. */
  private async waitForRate(endpointId: string, leaseUntil: number): Promise<boolean> {
    // The limit counts real time; time enough for the attempt itself must be left on the lease.
    const timeoutMs = this.parts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    const deadline = Date.now() + (leaseUntil - this.now()) - timeoutMs - 2_000;
    for (;;) {
      const wait = await this.parts.rate.reserve(endpointId);
      if (wait === 0) return true;
      if (Date.now() + wait > deadline) return false;
      // A little spread, so the instances waiting for one endpoint do not all ask at once.
      await new Promise((resolve) => setTimeout(resolve, wait + Math.floor(Math.random() * 20)));
    }
  }

  private async record(
    row: DeliveryRow,
    endpoint: WebhookEndpointRow,
    owner: string,
    at: number,
    result: AttemptResult,
  ): Promise<void> {
    const attempt: AttemptRow = {
      id: newId("att"),
      delivery_id: row.id,
      attempt: row.attempts + 1,
      attempted_at: at,
      latency_ms: result.latencyMs,
      status_code: result.statusCode,
      error: result.error,
      response_body: result.responseBody,
    };
    const outcome = this.outcome(row, attempt, result);
    const disabled = await this.parts.store.transaction(async (tx) => {
      await tx.webhookHealth.lockEndpoint(endpoint.id);
      if (!(await tx.webhookDeliveries.recordAttempt(attempt, owner, outcome))) return undefined;
      return recordHealth(tx, endpoint, at, result, outcome);
    });
    if (disabled === undefined) {
      this.parts.logger.warn(
        { delivery_id: row.id },
        "webhook attempt not recorded: the lease ran out before it ended",
      );
      return;
    }
    if (disabled !== null) await this.parts.notice(endpoint, disabled);
  }

  private outcome(row: DeliveryRow, attempt: AttemptRow, result: AttemptResult): AttemptOutcome {
    const at = attempt.attempted_at;
    if (result.ok) return { status: "delivered", at };
    const first = row.first_attempt_at ?? at;
    const next = nextAttemptAt(attempt.attempt, first, at, this.random);
    return next === undefined
      ? { status: "abandoned", at }
      : { status: "pending", nextAttemptAt: next };
  }
}
