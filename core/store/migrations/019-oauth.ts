import type { Knex } from "knex";

/**
 * OAuth adapters (core/oauth/):
 * - `oauth_states`: a started authorization, stored as the SHA-256 of its `state` only, bound to
 *   the workspace and site it connects, with the PKCE verifier sealed, the page to return to,
 *   who started it, its expiry (10 minutes) and the time it was used (once).
 * - `oauth_connections`: a site's grant: the access and refresh tokens sealed, their expiry, the
 *   destination the adapter config had when it was made (tokens never follow a config pointed
 *   elsewhere), its status (`connected` or `reauth_required`), the refresh failures in a row and
 *   when the next may be tried,
 *   and the lease of the refresh under way (`refresh_lock_until`, `refresh_lock_owner`): the
 *   store's lock, so that instances sharing the database refresh a token once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("oauth_states", (t) => {
    t.string("state_hash", 64).primary();
    t.string("workspace_id", 40)
      .notNullable()
      .references("id")
      .inTable("workspaces")
      .onDelete("CASCADE");
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    t.string("adapter_type", 100).notNullable();
    t.text("code_verifier").notNullable();
    t.string("return_to", 500).notNullable();
    /** `user:<id>` (a dashboard member, whose browser must finish) or `key:<id>`. */
    t.string("started_by", 100).notNullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("expires_at").notNullable();
    t.bigInteger("used_at").nullable();
    t.index(["expires_at"]);
  });
  await knex.schema.createTable("oauth_connections", (t) => {
    t.string("site_id", 63).primary().references("site_id").inTable("sites").onDelete("CASCADE");
    t.string("workspace_id", 40).notNullable();
    t.string("adapter_type", 100).notNullable();
    t.string("destination", 1000).notNullable();
    t.string("status", 20).notNullable();
    t.text("access_token").notNullable();
    t.text("refresh_token").nullable();
    t.string("token_type", 40).notNullable();
    t.string("scope", 1000).nullable();
    /** When the access token expires; null when the provider did not say. */
    t.bigInteger("expires_at").nullable();
    t.integer("failures").notNullable().defaultTo(0);
    /** After a failed refresh: none is tried again before it while the old token still serves. */
    t.bigInteger("retry_after").nullable();
    t.string("last_error", 500).nullable();
    t.bigInteger("connected_at").notNullable();
    t.bigInteger("refreshed_at").nullable();
    /** Bumped by every change of the tokens, so a write can say which tokens it replaces. */
    t.integer("generation").notNullable();
    t.bigInteger("refresh_lock_until").nullable();
    t.string("refresh_lock_owner", 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("oauth_connections");
  await knex.schema.dropTable("oauth_states");
}
