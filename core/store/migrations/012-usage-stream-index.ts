import type { Knex } from "knex";

/**
 * The live stream replays a site's usage events after the last id its client saw, in id order
 * (ids are time-ordered): this index serves that read without scanning the site's events.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("usage_events", (t) => t.index(["site_id", "id"]));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("usage_events", (t) => t.dropIndex(["site_id", "id"]));
}
