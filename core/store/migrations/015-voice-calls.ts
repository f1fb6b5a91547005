import type { Knex } from "knex";

/**
 * Voice calls: the provider's calls of each widget session, as the widget reports them (`POST
 * /v1/:siteId/session/call`). A session has one call at a time and a new one each time it
 * resumes; a call belongs to one session (its id is the key), so no visitor can claim another's
 * call. The row also holds the control lock: the instance that controls the call (its sideband
 * connection) and until when its lease runs, so two instances never control one call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("voice_calls", (t) => {
    t.string("call_id", 200).primary();
    t.string("session_id", 40)
      .notNullable()
      .references("id")
      .inTable("widget_sessions")
      .onDelete("CASCADE");
    t.string("site_id", 63).notNullable();
    t.bigInteger("created_at").notNullable();
    /** When the call ended, as the service saw it (hang-up, limit, session end); null while on. */
    t.bigInteger("ended_at").nullable();
    t.string("end_reason", 30).nullable();
    /** The instance controlling the call, and until when its lease runs. */
    t.string("controller", 64).nullable();
    t.bigInteger("lease_until").nullable();
    t.index(["session_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("voice_calls");
}
