import type { Knex } from "knex";

/**
 * Visitor data rights (core/user-data/):
 * - `user_data_requests`: each export or erasure asked for, the queue its jobs work from and,
 *   once done, its audit record (counts only). The fingerprint is kept sealed (`subject`) only
 *   while the request is open; `subject_hash` (a keyed hash of site and fingerprint) finds the
 *   open request of the same kind (`open_key`, unique, so two callers racing get one request) and
 *   the exports an erasure must remove.
 * - `user_data_exports`: the export documents, sealed, until their download link expires; gone
 *   with their site.
 * - an index on `service_events.created_at`: the daily retention job deletes service events (which
 *   carry leads and fingerprints) past 13 months, as it does session metadata.
 * - `leads.phone_digits`: a lead's phone as digits only, so a lookup by phone finds it however it
 *   was written; `leads.erased_at`: when an erasure emptied its personal fields.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("user_data_requests", (t) => {
    t.string("id", 40).primary();
    t.string("workspace_id", 40).notNullable();
    t.string("site_id", 63).notNullable();
    /** export or erasure. */
    t.string("kind", 10).notNullable();
    /** pending, running, done or failed. */
    t.string("status", 10).notNullable();
    t.text("subject").nullable();
    t.string("subject_hash", 64).nullable();
    t.string("open_key", 80).nullable().unique();
    /** The API key (or operator tool) that asked. */
    t.string("requested_by", 100).notNullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("due_by").notNullable();
    t.bigInteger("started_at").nullable();
    t.bigInteger("finished_at").nullable();
    t.integer("attempts").notNullable().defaultTo(0);
    t.bigInteger("next_attempt_at").nullable();
    t.bigInteger("lease_until").nullable();
    t.string("last_error", 500).nullable();
    t.bigInteger("alerted_at").nullable();
    /** JSON: what the export holds, or what the erasure removed (counts only). */
    t.text("result").nullable();
    t.bigInteger("download_expires_at").nullable();
    t.index(["workspace_id", "created_at", "id"]);
    t.index(["status", "next_attempt_at"]);
    t.index(["subject_hash"]);
  });
  await knex.schema.createTable("user_data_exports", (t) => {
    t.string("request_id", 40)
      .primary()
      .references("id")
      .inTable("user_data_requests")
      .onDelete("CASCADE");
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    t.string("subject_hash", 64).notNullable();
    t.text("document", "longtext").notNullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("expires_at").notNullable();
    t.index(["expires_at"]);
    t.index(["subject_hash"]);
  });
  await knex.schema.alterTable("service_events", (t) => t.index(["created_at"]));
  await knex.schema.alterTable("leads", (t) => {
    t.string("phone_digits", 50).nullable();
    t.bigInteger("erased_at").nullable();
    t.index(["site_id", "phone_digits"]);
    t.index(["site_id", "user_fingerprint"]);
  });
  const withPhone = await knex("leads")
    .whereNotNull("phone")
    .select<{ id: string; phone: string }[]>("id", "phone");
  for (const lead of withPhone) {
    await knex("leads")
      .where({ id: lead.id })
      .update({ phone_digits: lead.phone.replace(/\D/g, "").replace(/^0+/, "") || null });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("leads", (t) => {
    t.dropIndex(["site_id", "user_fingerprint"]);
    t.dropIndex(["site_id", "phone_digits"]);
    t.dropColumn("erased_at");
    t.dropColumn("phone_digits");
  });
  await knex.schema.alterTable("service_events", (t) => t.dropIndex(["created_at"]));
  await knex.schema.dropTable("user_data_exports");
  await knex.schema.dropTable("user_data_requests");
}
