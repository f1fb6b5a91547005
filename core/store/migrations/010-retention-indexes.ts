import type { Knex } from "knex";

/**
 * Indexes for the daily retention job, which deletes the usage events and widget sessions older
 * than 13 months a batch at a time, oldest first: without them each batch would scan the table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("usage_events", (t) => t.index(["created_at"]));
  await knex.schema.alterTable("widget_sessions", (t) => t.index(["created_at"]));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("widget_sessions", (t) => t.dropIndex(["created_at"]));
  await knex.schema.alterTable("usage_events", (t) => t.dropIndex(["created_at"]));
}
