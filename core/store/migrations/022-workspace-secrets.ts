import type { Knex } from "knex";

/**
 * `workspace_secrets`: per workspace, the key its visitor IDs (`user_fingerprint`) are a keyed
 * hash under, sealed with the master key. A row is made on the workspace's first visitor
 * (core/widget/visitor-ids.ts), not here: a migration has no master key to seal with. Visitor IDs
 * stored before it came under the service-wide key stay in their rows as they were.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("workspace_secrets", (t) => {
    t.string("workspace_id", 40)
      .primary()
      .references("id")
      .inTable("workspaces")
      .onDelete("CASCADE");
    t.string("visitor_id_key", 200).notNullable();
    t.bigInteger("created_at").notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("workspace_secrets");
}
