import type { Knex } from "knex";

/**
 * Dashboard accounts (core/accounts/):
 * - `dashboard_sessions`: the server side of a signed-in browser. The cookie's JWT names one; a
 *   sign-out (or a revocation) marks it, which takes effect at once however long the JWT lives.
 * - `auth_tokens`: single-use links, stored as the SHA-256 of the token only, each with its expiry
 *   and the time it was used: magic sign-in links (a user's), the first owner's setup link (the
 *   default workspace's, printed at the first start) and invitations (an email, a workspace and a
 *   role).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("dashboard_sessions", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.bigInteger("created_at").notNullable();
    t.bigInteger("expires_at").notNullable();
    t.bigInteger("revoked_at").nullable();
    t.index(["user_id"]);
  });
  await knex.schema.createTable("auth_tokens", (t) => {
    t.string("token_hash", 64).primary();
    /** magic_link, setup or invitation. */
    t.string("kind", 20).notNullable();
    t.string("user_id", 40).nullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("workspace_id", 40)
      .nullable()
      .references("id")
      .inTable("workspaces")
      .onDelete("CASCADE");
    t.string("email", 320).nullable();
    t.string("role", 20).nullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("expires_at").notNullable();
    t.bigInteger("used_at").nullable();
    t.index(["expires_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("auth_tokens");
  await knex.schema.dropTable("dashboard_sessions");
}
