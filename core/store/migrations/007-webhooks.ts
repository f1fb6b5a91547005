import type { Knex } from "knex";

/**
 * Webhooks: the endpoints a workspace subscribes, the outbox of deliveries (one row per event and
 * endpoint, written in the transaction that records the event) and the log of every attempt.
 *
 * A delivery is due when `status` is pending and `next_attempt_at` has come; an instance that
 * sends it holds a lease (`lease_owner` until `lease_until`), so an instance killed mid-send only
 * delays it until the lease runs out. `site_key` is the delivery's site (empty for none): the
 * deliveries of one endpoint and site go out in `created_at` order.
 */
export async function up(knex: Knex): Promise<void> {
  // conversation.ended counts its session's function calls and queries (the API reference's example).
  await knex.schema.alterTable("usage_events", (t) => {
    t.index(["session_id", "type"]);
  });
  await knex.schema.createTable("webhook_endpoints", (t) => {
    t.string("id", 40).primary();
    t.string("workspace_id", 40)
      .notNullable()
      .references("id")
      .inTable("workspaces")
      .onDelete("CASCADE");
    t.string("url", 2048).notNullable();
    t.string("description", 500).nullable();
    /** JSON array of event types. */
    t.text("events").notNullable();
    /** JSON array of site ids, or null for every site of the workspace. */
    t.text("site_ids").nullable();
    t.boolean("enabled").notNullable();
    /** Sealed `whsec_…` secrets: the current one, and the one it replaced while both sign. */
    t.text("secret").notNullable();
    t.text("previous_secret").nullable();
    t.bigInteger("previous_secret_until").nullable();
    /** Failed attempts since the last success, and when the first of them was. */
    t.integer("consecutive_failures").notNullable().defaultTo(0);
    t.bigInteger("failing_since").nullable();
    t.bigInteger("disabled_at").nullable();
    t.string("disabled_reason", 200).nullable();
    /** A receiver's Retry-After: nothing is sent to it before this. */
    t.bigInteger("paused_until").nullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("updated_at").notNullable();
    t.index(["workspace_id", "created_at", "id"]);
  });
  await knex.schema.createTable("webhook_deliveries", (t) => {
    t.string("id", 40).primary();
    t.string("endpoint_id", 40)
      .notNullable()
      .references("id")
      .inTable("webhook_endpoints")
      .onDelete("CASCADE");
    t.string("event_id", 40).notNullable();
    t.string("event_type", 60).notNullable();
    t.string("site_key", 63).notNullable();
    /** pending, delivered or abandoned (after 24 hours of failures). */
    t.string("status", 16).notNullable();
    t.integer("attempts").notNullable().defaultTo(0);
    t.bigInteger("created_at").notNullable();
    t.bigInteger("first_attempt_at").nullable();
    t.bigInteger("last_attempt_at").nullable();
    t.bigInteger("next_attempt_at").nullable();
    t.bigInteger("finished_at").nullable();
    t.string("lease_owner", 40).nullable();
    t.bigInteger("lease_until").nullable();
    /** The delivery this one sends again (redeliver). */
    t.string("redelivery_of", 40).nullable();
    t.index(["status", "next_attempt_at"]);
    t.index(["endpoint_id", "site_key", "status", "created_at"]);
    t.index(["endpoint_id", "created_at", "id"]);
  });
  await knex.schema.createTable("webhook_attempts", (t) => {
    t.string("id", 40).primary();
    t.string("delivery_id", 40)
      .notNullable()
      .references("id")
      .inTable("webhook_deliveries")
      .onDelete("CASCADE");
    t.integer("attempt").notNullable();
    t.bigInteger("attempted_at").notNullable();
    t.integer("latency_ms").notNullable();
    t.integer("status_code").nullable();
    t.string("error", 500).nullable();
    /** The start of the receiver's answer, capped (a few KB). */
    t.text("response_body").nullable();
    t.index(["delivery_id", "attempt"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("webhook_attempts");
  await knex.schema.dropTable("webhook_deliveries");
  await knex.schema.dropTable("webhook_endpoints");
  await knex.schema.alterTable("usage_events", (t) => {
    t.dropIndex(["session_id", "type"]);
  });
}
