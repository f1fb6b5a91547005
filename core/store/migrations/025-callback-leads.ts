import type { Knex } from "knex";

/**
 * Callback requests are leads (`source: "callback"`): `leads.source` says what asked for the lead
 * (`widget`, the agent's submit_lead, for every lead before), `leads.reason` why the visitor wants
 * a person, and `leads.turns` the conversation so far as the widget sent it (JSON, at most 30
 * turns of 600 characters: more than MySQL's TEXT holds in four-byte characters).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("leads", (t) => {
    t.string("source", 20).notNullable().defaultTo("widget");
    t.string("reason", 200).nullable();
    t.text("turns", "mediumtext").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("leads", (t) => {
    t.dropColumn("turns");
    t.dropColumn("reason");
    t.dropColumn("source");
  });
}
