/**
 * An endpoint's health after each attempt (the API reference, "Webhooks"): a success clears its run of
 * failures; a failure lengthens it, and the endpoint is disabled when every attempt failed for 24
 * hours or 50 in a row, or at once when the receiver answers 410 Gone. An endpoint that alternates
 * success and failure never reaches either. A 429 or 503 with Retry-After pauses the endpoint that
 * long, but never past the failed delivery's own next attempt. Disabling is conditional in the
 * store, so however many instances see the last failure, the owner is told once.
 */
import type { Logger } from "pino";
import type { Mailer } from "../mail/mailer.ts";
import type { AttemptOutcome } from "../store/repos/webhook-deliveries-repo.ts";
import type { WebhookEndpointRow } from "../store/repos/webhook-endpoints-repo.ts";
import type { Store } from "../store/store.ts";
import { RETRY_WINDOW_MS } from "./retry-schedule.ts";
import type { AttemptResult } from "./send-attempt.ts";

/** Failed attempts in a row that disable an endpoint. */
export const MAX_FAILURES_IN_A_ROW = 50;

/** Tells the owner that `endpoint` was disabled, and why. */
export type EndpointNotice = (endpoint: WebhookEndpointRow, reason: string) => Promise<void>;

/**
 * Records the attempt's effect on its endpoint in the transaction `tx`; the reason when this
 * attempt disabled the endpoint, else null.
 */
export async function recordHealth(
  tx: Store,
  endpoint: WebhookEndpointRow,
  at: number,
  result: AttemptResult,
  outcome: AttemptOutcome,
): Promise<string | null> {
  const health = tx.webhookHealth;
  if (result.ok) {
    await health.endpointSucceeded(endpoint.id);
    return null;
  }
  const state = await health.endpointFailed(endpoint.id, at);
  if (result.retryAfterMs !== undefined && result.retryAfterMs > 0) {
    const next = outcome.status === "pending" ? outcome.nextAttemptAt : Infinity;
    await health.pauseEndpoint(endpoint.id, Math.min(at + result.retryAfterMs, next));
  }
  if (state === undefined) return null; // deleted meanwhile
  const reason = result.gone
    ? "the receiver answered 410 Gone"
    : state.consecutiveFailures >= MAX_FAILURES_IN_A_ROW
      ? `${state.consecutiveFailures} delivery attempts in a row failed`
      : at - state.failingSince >= RETRY_WINDOW_MS
        ? "every delivery attempt failed for 24 hours"
        : undefined;
  if (reason === undefined) return null;
  return (await health.disableEndpoint(endpoint.id, at, reason)) ? reason : null;
}

/** The notice by mail to the workspace's owner (its contact email), and in the log. */
export function mailedNotice(store: Store, mailer: Mailer, logger: Logger): EndpointNotice {
  return async (endpoint, reason) => {
    logger.warn({ webhook_id: endpoint.id, reason }, "webhook endpoint disabled");
    const to = await store.workspaces.ownerEmail(endpoint.workspace_id);
    if (to === undefined) {
      logger.warn({ webhook_id: endpoint.id }, "no owner email to tell of a disabled endpoint");
      return;
    }
    try {
      await mailer.send({
        to,
        subject: `Webhook endpoint disabled: ${new URL(endpoint.url).host}`,
        text: [
          `The webhook endpoint ${endpoint.id} (${endpoint.url}) was disabled: ${reason}.`,
          "",
          "No more events are sent to it. Deliveries it missed are kept for 24 hours: fix the",
          `receiver, then re-enable the endpoint with PATCH /v1/webhooks/${endpoint.id}`,
          '{"enabled": true} and what is still within its 24 hours is sent.',
        ].join("\n"),
      });
    } catch (error) {
      logger.error({ err: error, webhook_id: endpoint.id }, "could not mail the owner");
    }
  };
}
