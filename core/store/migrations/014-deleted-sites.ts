import type { Knex } from "knex";

/**
 * Deleted sites whose usage data (raw events and both rollups, which keep no foreign key to the
 * site) is still to be removed: a row is written in the transaction that deletes the site and
 * removed once its data is gone. While it stands, the site_id is not taken again before that data
 * is removed, so a new site of the same id, in any workspace, never reads the old one's usage.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("deleted_sites", (t) => {
    t.string("site_id", 63).primary();
    t.string("workspace_id", 40).notNullable();
    t.bigInteger("deleted_at").notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("deleted_sites");
}
