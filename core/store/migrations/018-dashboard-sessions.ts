import type { Knex } from "knex";

/**
 * Dashboard accounts (core/accounts/):
 * - `dashboard_sessions`: the server side of a signed-in browser. The cookie's JWT names one; a
 *   sign-out (or a revocation) marks it, which takes effect at once however long the JWT lives.
 * - `auth_tokens`: single-use links sent by mail (magic sign-in links), stored as the SHA-256 of
 *   the token only, each with its expiry and the time it was used.
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
    /** magic_link. */
    t.string("kind", 20).notNullable();
    t.string("user_id", 40).nullable().references("id").inTable("users").onDelete("CASCADE");
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
