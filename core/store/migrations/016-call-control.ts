import type { Knex } from "knex";

/**
 * What controlling calls keeps (core/voice/):
 * - `widget_sessions.provider_session`: the instructions and tools (JSON) of the session's latest
 *   provider session, as minted, which the service puts back on its calls when anyone else
 *   changes them;
 * - `widget_sessions.ended_event_at`: when its `conversation.ended` was recorded (at its end, or
 *   with its cost for a controlled session), so it is recorded once;
 * - `widget_sessions.cost_settled_at`: when the cost of a controlled session was worked out (or
 *   found unknowable), so it is done once;
 * - `voice_calls.controlled_at`: when an instance first joined the call;
 * - `call_usage`: the token usage the provider confirmed for each response of a call, by kind;
 *   its key is the call and the provider's response id, so a response reported twice (after a
 *   reconnect) counts once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("widget_sessions", (t) => {
    t.text("provider_session", "mediumtext").nullable();
    t.bigInteger("ended_event_at").nullable();
    t.bigInteger("cost_settled_at").nullable();
    // The sessions whose cost is still to settle, found by their end.
    t.index(["cost_settled_at", "ended_at"]);
  });
  await knex.schema.alterTable("voice_calls", (t) => {
    t.bigInteger("controlled_at").nullable();
  });
  await knex.schema.createTable("call_usage", (t) => {
    t.string("call_id", 200)
      .notNullable()
      .references("call_id")
      .inTable("voice_calls")
      .onDelete("CASCADE");
    t.string("response_id", 100).notNullable();
    t.string("id", 40).notNullable();
    t.string("session_id", 40).notNullable();
    t.string("model", 100).notNullable();
    for (const column of USAGE_COLUMNS) t.bigInteger(column).notNullable().defaultTo(0);
    t.bigInteger("created_at").notNullable();
    t.primary(["call_id", "response_id"]);
    t.index(["session_id"]);
  });
}

/** The token counts of a usage row, by kind. */
export const USAGE_COLUMNS = [
  "input_text",
  "input_audio",
  "input_image",
  "cached_text",
  "cached_audio",
  "cached_image",
  "output_text",
  "output_audio",
] as const;

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("call_usage");
  await knex.schema.alterTable("voice_calls", (t) => t.dropColumn("controlled_at"));
  await knex.schema.alterTable("widget_sessions", (t) => {
    t.dropIndex(["cost_settled_at", "ended_at"]);
    t.dropColumn("cost_settled_at");
    t.dropColumn("ended_event_at");
    t.dropColumn("provider_session");
  });
}
