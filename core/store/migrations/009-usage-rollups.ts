import type { Knex } from "knex";

/**
 * Usage rollups: per site, per quarter hour (UTC), per event type and function name, how many
 * events, their summed `duration_seconds`, and their summed `cost_cents` with how many events had
 * a cost (none: the cost is absent, not zero). Every time zone's offset is a whole number of
 * quarter hours, so any zone's hours, days and weeks are unions of these buckets, and a summary
 * reads them instead of the raw events. They are written in the transaction that stores the
 * events, and kept when raw events expire.
 *
 * Events stored before this migration are rolled up here, once.
 */
export const ROLLUP_GRAIN_MS = 15 * 60_000;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("usage_rollups", (t) => {
    t.string("site_id", 63).notNullable();
    /** The quarter hour's start, ms since the epoch (UTC). */
    t.bigInteger("bucket_start").notNullable();
    t.string("type", 30).notNullable();
    /** The function of function_call events; "" for the other types. */
    t.string("function_name", 100).notNullable().defaultTo("");
    t.bigInteger("events").notNullable();
    t.double("duration_seconds").notNullable().defaultTo(0);
    t.double("cost_cents").notNullable().defaultTo(0);
    /** How many of the events had a cost: 0 means the cost is unknown, not zero. */
    t.bigInteger("costed").notNullable().defaultTo(0);
    t.primary(["site_id", "bucket_start", "type", "function_name"]);
  });
  // The grain is a constant of ours, written into the SQL so GROUP BY and SELECT are one
  // expression on every database.
  const bucket = `created_at - (created_at % ${ROLLUP_GRAIN_MS})`;
  await knex.raw(
    "insert into usage_rollups" +
      " (site_id, bucket_start, type, function_name, events, duration_seconds, cost_cents, costed)" +
      ` select site_id, ${bucket}, type, coalesce(function_name, ''), count(*),` +
      " coalesce(sum(duration_seconds), 0), coalesce(sum(cost_cents), 0), count(cost_cents)" +
      ` from usage_events group by site_id, ${bucket}, type, coalesce(function_name, '')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("usage_rollups");
}
