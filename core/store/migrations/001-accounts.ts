import type { Knex } from "knex";

/** Workspaces, users and API keys. Times are milliseconds since the epoch in BIGINT columns. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("workspaces", (t) => {
    t.string("id", 40).primary();
    t.string("name", 200).notNullable();
    t.string("plan", 20).notNullable();
    t.bigInteger("created_at").notNullable();
  });
  await knex.schema.createTable("users", (t) => {
    t.string("id", 40).primary();
    t.string("email", 320).notNullable().unique();
    t.string("password_hash", 255).nullable();
    t.bigInteger("created_at").notNullable();
  });
  await knex.schema.createTable("workspace_members", (t) => {
    t.string("workspace_id", 40)
      .notNullable()
      .references("id")
      .inTable("workspaces")
      .onDelete("CASCADE");
    t.string("user_id", 40).notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("role", 20).notNullable();
    t.bigInteger("created_at").notNullable();
    t.primary(["workspace_id", "user_id"]);
  });
  await knex.schema.createTable("api_keys", (t) => {
    t.string("id", 40).primary();
    t.string("workspace_id", 40)
      .notNullable()
      .references("id")
      .inTable("workspaces")
      .onDelete("CASCADE");
    t.string("name", 100).notNullable();
    t.string("mode", 4).notNullable();
    t.string("last4", 4).notNullable();
    t.string("key_hash", 64).notNullable().unique();
    t.text("scopes").notNullable();
    t.text("site_ids").nullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("last_used_at").nullable();
    t.bigInteger("revoked_at").nullable();
    t.index(["workspace_id", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("api_keys");
  await knex.schema.dropTable("workspace_members");
  await knex.schema.dropTable("users");
  await knex.schema.dropTable("workspaces");
}
