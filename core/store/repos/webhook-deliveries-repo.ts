/**
 * The webhook outbox (migration 007): deliveries and their attempts (the endpoints' delivery
 * state is webhook-health-repo.ts). The dispatcher of any instance takes a due delivery by a conditional UPDATE (a
 * lease), so two instances never send the same attempt, and one killed mid-send only delays it
 * until its lease runs out. Only the head of a queue (the oldest due delivery of an endpoint and
 * site) is offered, which keeps each queue in `created_at` order across instances.
 */
import { newestFirst } from "../newest-first.ts";
import type { Knex } from "knex";

export type DeliveryStatus = "pending" | "delivered" | "abandoned";

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** The event's site, or "" for none. */
  site_key: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: number;
  first_attempt_at: number | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  finished_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  redelivery_of: string | null;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  attempt: number;
  attempted_at: number;
  latency_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

export interface DeliveryCursor {
  created_at: number;
  id: string;
}

const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function deliveryRow(raw: DeliveryRow): DeliveryRow {
  return {
    ...raw,
    attempts: Number(raw.attempts),
    created_at: Number(raw.created_at),
    first_attempt_at: num(raw.first_attempt_at),
    last_attempt_at: num(raw.last_attempt_at),
    next_attempt_at: num(raw.next_attempt_at),
    finished_at: num(raw.finished_at),
    lease_until: num(raw.lease_until),
  };
}

const attemptRow = (raw: AttemptRow): AttemptRow => ({
  ...raw,
  attempt: Number(raw.attempt),
  attempted_at: Number(raw.attempted_at),
  latency_ms: Number(raw.latency_ms),
  status_code: num(raw.status_code),
});

/** What an attempt changed on its delivery. */
export type AttemptOutcome =
  | { status: "delivered"; at: number }
  | { status: "pending"; nextAttemptAt: number }
  | { status: "abandoned"; at: number };

export class WebhookDeliveriesRepo {
  constructor(private readonly knex: Knex) {}

  async insert(rows: readonly DeliveryRow[]): Promise<void> {
    if (rows.length > 0) await this.knex("webhook_deliveries").insert(rows);
  }

  async get(id: string): Promise<DeliveryRow | undefined> {
    const raw = await this.knex<DeliveryRow>("webhook_deliveries").where({ id }).first();
    return raw === undefined ? undefined : deliveryRow(raw);
  }

  /**
   * Heads of queues due at `now` and not leased: pending, due, of an enabled endpoint that asked
   * for no pause, with no older due delivery of the same endpoint and site. Oldest first.
   */
  async dueHeads(now: number, limit: number): Promise<DeliveryRow[]> {
    const rows = await this.knex<DeliveryRow>("webhook_deliveries as d")
      .join("webhook_endpoints as e", "e.id", "d.endpoint_id")
      .where("d.status", "pending")
      .andWhere("d.next_attempt_at", "<=", now)
      .andWhere((q) => q.whereNull("d.lease_until").orWhere("d.lease_until", "<", now))
      .andWhere("e.enabled", true)
      .andWhere((q) => q.whereNull("e.paused_until").orWhere("e.paused_until", "<=", now))
      .whereNotExists((q) =>
        q
          .select(this.knex.raw("1"))
          .from("webhook_deliveries as o")
          .whereRaw("o.endpoint_id = d.endpoint_id")
          .andWhereRaw("o.site_key = d.site_key")
          .andWhere("o.status", "pending")
          .andWhere("o.next_attempt_at", "<=", now)
          .andWhere((older) =>
            older
              .whereRaw("o.created_at < d.created_at")
              .orWhere((tie) =>
                tie.whereRaw("o.created_at = d.created_at").andWhereRaw("o.id < d.id"),
              ),
          ),
      )
      .orderBy([{ column: "d.created_at" }, { column: "d.id" }])
      .limit(limit)
      .select("d.*");
    return rows.map(deliveryRow);
  }

  /** The next due delivery of the same queue after `after`, if any. */
  async nextInQueue(after: DeliveryRow, now: number): Promise<DeliveryRow | undefined> {
    const raw = await this.knex<DeliveryRow>("webhook_deliveries")
      .where({ endpoint_id: after.endpoint_id, site_key: after.site_key, status: "pending" })
      .andWhere("next_attempt_at", "<=", now)
      .andWhere((q) =>
        q
          .where("created_at", ">", after.created_at)
          .orWhere((tie) =>
            tie.where("created_at", after.created_at).andWhere("id", ">", after.id),
          ),
      )
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .first();
    return raw === undefined ? undefined : deliveryRow(raw);
  }

  /** Takes the delivery for `owner` until `until`; false when another holds it or it is done. */
  async lease(id: string, owner: string, now: number, until: number): Promise<boolean> {
    const changed = await this.knex("webhook_deliveries")
      .where({ id, status: "pending" })
      .andWhere((q) => q.whereNull("lease_until").orWhere("lease_until", "<", now))
      .update({ lease_owner: owner, lease_until: until });
    return changed === 1;
  }

  /** Gives a lease back without an attempt (the instance stops, the endpoint was disabled). */
  async release(id: string, owner: string): Promise<void> {
    await this.knex("webhook_deliveries")
      .where({ id, lease_owner: owner })
      .update({ lease_owner: null, lease_until: null });
  }

  /**
   * Stores an attempt and its outcome, if `owner` still holds the lease (false otherwise: the
   * lease ran out and the attempt is not counted; the receiver dedupes by event id).
   */
  async recordAttempt(
    attempt: AttemptRow,
    owner: string,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const changes: Record<string, unknown> = {
      attempts: attempt.attempt,
      last_attempt_at: attempt.attempted_at,
      lease_owner: null,
      lease_until: null,
      status: outcome.status,
    };
    if (attempt.attempt === 1) changes.first_attempt_at = attempt.attempted_at;
    if (outcome.status === "pending") changes.next_attempt_at = outcome.nextAttemptAt;
    else Object.assign(changes, { next_attempt_at: null, finished_at: outcome.at });
    const changed = await this.knex("webhook_deliveries")
      .where({ id: attempt.delivery_id, lease_owner: owner, status: "pending" })
      .update(changes);
    if (changed !== 1) return false;
    await this.knex("webhook_attempts").insert(attempt);
    return true;
  }

  /** Ends a pending delivery without another attempt (past its 24 hours, its event gone). */
  async abandon(id: string, at: number): Promise<boolean> {
    const changed = await this.knex("webhook_deliveries").where({ id, status: "pending" }).update({
      status: "abandoned",
      next_attempt_at: null,
      finished_at: at,
      lease_owner: null,
      lease_until: null,
    });
    return changed === 1;
  }

  /**
   * Abandons every pending delivery first tried (or, never tried, created) before `before`: past
   * its window, such as those of an endpoint that stayed disabled. How many.
   */
  async abandonOlderThan(before: number, at: number): Promise<number> {
    return this.knex("webhook_deliveries")
      .where("status", "pending")
      .andWhereRaw("coalesce(first_attempt_at, created_at) < ?", [before])
      .update({
        status: "abandoned",
        next_attempt_at: null,
        finished_at: at,
        lease_owner: null,
        lease_until: null,
      });
  }

  /** Deletes finished deliveries (and their attempts) that finished before `before`. */
  async deleteFinishedBefore(before: number): Promise<number> {
    return this.knex("webhook_deliveries")
      .whereIn("status", ["delivered", "abandoned"])
      .andWhere("finished_at", "<", before)
      .delete();
  }

  /** A page of an endpoint's deliveries, newest first, after `before`. */
  async page(
    endpointId: string,
    options: { limit: number; before?: DeliveryCursor; status?: DeliveryStatus },
  ): Promise<DeliveryRow[]> {
    const query = this.knex<DeliveryRow>("webhook_deliveries").where({ endpoint_id: endpointId });
    if (options.status !== undefined) query.andWhere({ status: options.status });
    const rows = await newestFirst(query, options.before).limit(options.limit);
    return rows.map(deliveryRow);
  }

  /** The attempts of the given deliveries, in order. */
  async attemptsOf(deliveryIds: readonly string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await this.knex<AttemptRow>("webhook_attempts")
      .whereIn("delivery_id", [...deliveryIds])
      .orderBy([{ column: "delivery_id" }, { column: "attempt" }]);
    return rows.map(attemptRow);
  }

  /** Counts of an endpoint's deliveries by status (tests, the dashboard later). */
  async countByStatus(endpointId: string): Promise<Record<DeliveryStatus, number>> {
    const rows = await this.knex("webhook_deliveries")
      .where({ endpoint_id: endpointId })
      .groupBy("status")
      .select("status")
      .count<{ status: DeliveryStatus; n: number | string }[]>({ n: "*" });
    const counts: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, abandoned: 0 };
    for (const row of rows) counts[row.status] = Number(row.n);
    return counts;
  }
}
