import type { Knex } from "knex";

/**
 * What the widget writes: sessions (with their sealed signing secret), usage events, service
 * events (the event bus's record, which webhooks deliver later), leads and transcripts.
 * Usage and service events keep no foreign key to sites: analytics and billing outlive a site.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("widget_sessions", (t) => {
    t.string("id", 40).primary();
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    t.string("workspace_id", 40).notNullable();
    t.string("signing_secret", 200).notNullable();
    t.string("user_fingerprint", 64).notNullable();
    // HMAC of the visitor's IP, cleared after one hour (the API reference's retention).
    t.string("ip_hash", 64).nullable();
    t.string("page_url", 2000).nullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("last_seen_at").notNullable();
    t.bigInteger("ended_at").nullable();
    t.string("end_reason", 20).nullable();
    t.index(["ended_at", "last_seen_at"]);
    t.index(["site_id", "user_fingerprint"]);
  });
  await knex.schema.createTable("usage_events", (t) => {
    t.string("id", 40).primary();
    t.string("site_id", 63).notNullable();
    t.string("session_id", 40).nullable();
    t.string("type", 30).notNullable();
    t.string("function_name", 100).nullable();
    t.double("duration_seconds").nullable();
    t.double("cost_cents").nullable();
    t.text("metadata").nullable();
    // The widget's own id for the event: a retried write with the same one counts once.
    t.string("client_event_id", 100).nullable();
    t.bigInteger("created_at").notNullable();
    t.index(["site_id", "created_at"]);
    t.unique(["site_id", "client_event_id"]);
  });
  await knex.schema.createTable("service_events", (t) => {
    t.string("id", 40).primary();
    t.string("type", 60).notNullable();
    t.string("workspace_id", 40).notNullable();
    t.string("site_id", 63).nullable();
    t.text("data", "mediumtext").notNullable();
    t.bigInteger("created_at").notNullable();
    t.index(["workspace_id", "created_at"]);
  });
  await knex.schema.createTable("leads", (t) => {
    t.string("id", 40).primary();
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    t.string("workspace_id", 40).notNullable();
    t.string("session_id", 40).nullable();
    t.string("user_fingerprint", 64).nullable();
    t.string("name", 200).nullable();
    t.string("email", 320).nullable();
    t.string("phone", 50).nullable();
    t.text("message").nullable();
    t.string("page_url", 2000).nullable();
    t.text("fields").nullable();
    t.string("status", 20).notNullable();
    t.text("notes").nullable();
    t.string("update_token_hash", 64).notNullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("updated_at").notNullable();
    t.index(["workspace_id", "created_at", "id"]);
    t.index(["site_id", "status"]);
  });
  await knex.schema.createTable("transcripts", (t) => {
    t.string("id", 40).primary();
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    t.string("session_id", 40).notNullable();
    t.string("user_fingerprint", 64).notNullable();
    t.text("turns", "mediumtext").notNullable();
    t.string("page_url", 2000).nullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("expires_at").notNullable();
    t.index(["expires_at"]);
    t.index(["site_id", "user_fingerprint"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    "transcripts",
    "leads",
    "service_events",
    "usage_events",
    "widget_sessions",
  ]) {
    await knex.schema.dropTable(table);
  }
}
