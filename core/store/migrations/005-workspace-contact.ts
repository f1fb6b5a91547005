import type { Knex } from "knex";

/**
 * `contact_email` on workspaces: where the workspace's notices go (a webhook endpoint disabled),
 * "the owner" until accounts exist. The default workspace's comes from SITEVOICE_OWNER_EMAIL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workspaces", (t) => {
    t.string("contact_email", 254).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workspaces", (t) => {
    t.dropColumn("contact_email");
  });
}
