import type { Knex } from "knex";

/**
 * Closed local days of the usage rollups, kept for summaries: per site and time zone, per local
 * day (its start, ms since the epoch), event type and function name, the sums of that day's
 * quarter-hour rollups. A summary over a year reads about a row per day and type instead of 96;
 * a day is written the first time a summary (or the nightly job) needs it after it has ended,
 * with a row of type "" marking it written even when it had no events. A cost added later to one
 * of its events forgets the day, to be written again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("usage_day_rollups", (t) => {
    t.string("site_id", 63).notNullable();
    t.string("timezone", 64).notNullable();
    /** The local day's first instant, ms since the epoch. */
    t.bigInteger("day_start").notNullable();
    /** The events' type; "" for the row marking the day written. */
    t.string("type", 30).notNullable();
    t.string("function_name", 100).notNullable().defaultTo("");
    t.bigInteger("events").notNullable();
    t.double("duration_seconds").notNullable().defaultTo(0);
    t.double("cost_cents").notNullable().defaultTo(0);
    t.bigInteger("costed").notNullable().defaultTo(0);
    t.primary(["site_id", "timezone", "day_start", "type", "function_name"]);
    // Forgetting a site's days around an instant, whatever their zone.
    t.index(["site_id", "day_start"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("usage_day_rollups");
}
