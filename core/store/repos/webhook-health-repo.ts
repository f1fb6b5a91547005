/**
 * The delivery state of webhook endpoints (migration 007), written with each attempt: the run of
 * failures since the last success and when it began, the pause a receiver asked for, and
 * disabling, conditional so that one instance's change is the one that counts.
 */
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";

export class WebhookHealthRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * On MySQL/MariaDB, locks the endpoint's row until the transaction ends, before anything else
   * of an attempt's record is written. Two queues of one endpoint (two sites) record at once, and
   * InnoDB has each hold a shared lock on the row (its delivery's foreign key) and wait for the
   * other's to update it: a deadlock that aborted one record after its request was sent, so that
   * delivery went out again. PostgreSQL's foreign-key locks do not block an update of the row,
   * and SQLite serializes writers: there, records of one endpoint still go side by side.
   */
  async lockEndpoint(endpointId: string): Promise<void> {
    if (this.client !== "mysql") return;
    await this.knex("webhook_endpoints").where({ id: endpointId }).forUpdate().first("id");
  }

  /** A success: the failure count starts again. */
  async endpointSucceeded(endpointId: string): Promise<void> {
    await this.knex("webhook_endpoints")
      .where({ id: endpointId })
      .andWhere((q) => q.where("consecutive_failures", ">", 0).orWhereNotNull("failing_since"))
      .update({ consecutive_failures: 0, failing_since: null });
  }

  /** A failure at `at`: the endpoint's failures in a row and when they began, after it. */
  async endpointFailed(
    endpointId: string,
    at: number,
  ): Promise<{ consecutiveFailures: number; failingSince: number } | undefined> {
    await this.knex("webhook_endpoints")
      .where({ id: endpointId })
      .update({
        consecutive_failures: this.knex.raw("consecutive_failures + 1"),
        failing_since: this.knex.raw("coalesce(failing_since, ?)", [at]),
      });
    const row = await this.knex("webhook_endpoints")
      .where({ id: endpointId })
      .first("consecutive_failures", "failing_since");
    if (row === undefined) return undefined;
    return {
      consecutiveFailures: Number(row.consecutive_failures),
      failingSince: Number(row.failing_since),
    };
  }

  /** Nothing goes to the endpoint before `until` (a receiver's Retry-After). */
  async pauseEndpoint(endpointId: string, until: number): Promise<void> {
    await this.knex("webhook_endpoints")
      .where({ id: endpointId })
      .andWhere((q) => q.whereNull("paused_until").orWhere("paused_until", "<", until))
      .update({ paused_until: until });
  }

  /** Disables an enabled endpoint; false when it was disabled already (so one notice is sent). */
  async disableEndpoint(endpointId: string, at: number, reason: string): Promise<boolean> {
    const changed = await this.knex("webhook_endpoints")
      .where({ id: endpointId, enabled: true })
      .update({ enabled: false, disabled_at: at, disabled_reason: reason, updated_at: at });
    return changed === 1;
  }
}
