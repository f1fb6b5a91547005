import type { Knex } from "knex";

/**
 * Sites and their versions. `config` holds the SiteConfig as JSON with secrets sealed; name and
 * domain are copied out so lists can search them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("sites", (t) => {
    t.string("site_id", 63).primary();
    t.string("workspace_id", 40)
      .notNullable()
      .references("id")
      .inTable("workspaces")
      .onDelete("CASCADE");
    t.string("business_name", 200).notNullable();
    t.string("domain", 260).notNullable();
    t.text("config", "mediumtext").notNullable();
    t.integer("version").notNullable();
    t.string("content_hash", 64).notNullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("updated_at").notNullable();
    t.index(["workspace_id", "created_at", "site_id"]);
  });
  await knex.schema.createTable("site_versions", (t) => {
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    t.integer("version").notNullable();
    t.text("config", "mediumtext").notNullable();
    t.string("content_hash", 64).notNullable();
    t.string("source", 20).notNullable();
    t.string("actor", 100).notNullable();
    t.bigInteger("created_at").notNullable();
    t.primary(["site_id", "version"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("site_versions");
  await knex.schema.dropTable("sites");
}
