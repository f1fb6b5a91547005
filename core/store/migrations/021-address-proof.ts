import type { Knex } from "knex";

/**
 * An account counts once it proved its address (core/accounts/sign-up.ts):
 * - `users.verified_at`: when its address was proved (a sign-up's mailed link, an accepted
 *   invitation, the owner's setup link); null for an open sign-up not confirmed yet, which
 *   signs in by no means and is taken over by whoever proves the address. The users made before
 *   this migration are counted as proved at their creation.
 * - on `auth_tokens`, what a sign-up's confirmation link makes once used: its own password hash
 *   and workspace name, so that two sign-ups of one address each confirm what they asked for.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    t.bigInteger("verified_at").nullable();
  });
  await knex("users").update({ verified_at: knex.ref("created_at") });
  await knex.schema.alterTable("auth_tokens", (t) => {
    t.string("password_hash", 255).nullable();
    t.string("workspace_name", 200).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("auth_tokens", (t) => {
    t.dropColumn("workspace_name");
    t.dropColumn("password_hash");
  });
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("verified_at");
  });
}
